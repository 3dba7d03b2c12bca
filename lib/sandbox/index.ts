import { config } from "@/lib/settings/config";
import { checkCode, type CheckResult, type Violation } from "./check";
import { guardedFetch } from "./fetch-guard";
import { processWide } from "@/lib/platform/process-wide";
import { SandboxPool, type RunMode, type SandboxOutcome, type ToolCallHandler } from "./pool";
import type { ToolSource } from "./languages";
import { checkPython, runPython } from "./python";

export { checkCode, type Violation } from "./check";
export { ToolLanguage, type ToolSource } from "./languages";
export { pythonPool } from "./python";

export type SandboxResult = SandboxOutcome | (Extract<SandboxOutcome, { ok: false }> & { violations: Violation[] });

// One pool per server process, whatever loads this module (and dev-mode reloads leak no threads).
export function sandboxPool(): SandboxPool {
  return processWide("sandboxPool", () => new SandboxPool(config.sandboxWorkers));
}

/** The policy's verdict on code, in its own language: JavaScript's is acorn's walk, Python's its own `ast`. */
export async function checkSource(source: ToolSource, options = { requireEntryPoint: true }): Promise<CheckResult> {
  return source.language === "python" ? checkPython(source.code, options) : checkCode(source.code, options);
}

/**
 * Run code in the sandbox: the policy again, whatever checked it before, then the language's sandbox under the
 * limits. `tool` calls the entry point with `input`, `compile` checks that it defines one, `snippet` returns its
 * last value; `signal` stops it all. `callTool` serves the code's `tools.call` (a stored tool's, lib/tools/call.ts);
 * `nested`: this code was called by another tool's.
 */
export async function runInSandbox(
  mode: RunMode,
  source: ToolSource,
  input?: unknown,
  signal?: AbortSignal,
  { callTool, nested }: { callTool?: ToolCallHandler; nested?: boolean } = {},
): Promise<SandboxResult> {
  if (source.language === "python") {
    const outcome = await runPython(mode, source.code, input, signal);
    return "violations" in outcome ? refusedByPolicy(outcome.violations) : outcome;
  }
  const { code } = source;
  const check = checkCode(code, { requireEntryPoint: mode !== "snippet" });
  if (!check.ok) return refusedByPolicy(check.violations);
  let fetches = 0;
  const onFetch = (request: Parameters<typeof guardedFetch>[0], fetchSignal: AbortSignal) => {
    if (++fetches > config.fetch.maxRequestsPerCall) {
      return Promise.reject(new Error(`More than ${config.fetch.maxRequestsPerCall} fetches in one call.`));
    }
    return guardedFetch(request, { limits: config.fetch, signal: fetchSignal });
  };
  return sandboxPool().run({ mode, code, input, limits: config.sandbox, nested }, { fetch: onFetch, callTool }, signal);
}

/** A call refused before it ran: the violations, as the model reads them and as structured data. */
export function refusedByPolicy(violations: Violation[]): SandboxResult {
  return {
    ok: false,
    error: { kind: "error", message: `Code refused by policy: ${violations.map(formatViolation).join("; ")}` },
    violations,
    logs: [],
    consoleTruncated: false,
    durationMs: 0,
  };
}

export function formatViolation(violation: Violation): string {
  return `line ${violation.line}, column ${violation.column}: ${violation.message}`;
}
