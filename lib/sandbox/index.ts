import { config } from "@/lib/settings/config";
import { checkCode, type CheckOptions, type CheckResult, type Violation } from "./check";
import { guardedFetch } from "./fetch-guard";
import { processWide } from "@/lib/platform/process-wide";
import { SandboxPool, type FetchRequest, type RunMode, type SandboxOutcome, type ToolCallHandler } from "./pool";
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

/**
 * The policy's verdict on code, in its own language: JavaScript's is acorn's walk, Python's its own `ast`. With
 * `uses` (the tools the code says it calls), each tools.call must name one of them as a literal, and `tools` be used
 * no other way.
 */
export async function checkSource(source: ToolSource, options: CheckOptions = {}): Promise<CheckResult> {
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
  const served = callTool && upTo(config.toolCallsPerCall, "tools.call calls", callTool);
  if (source.language === "python") {
    const outcome = await runPython(mode, source.code, input, signal, { callTool: served, nested });
    return "violations" in outcome ? refusedByPolicy(outcome.violations) : outcome;
  }
  const { code } = source;
  const check = checkCode(code, { requireEntryPoint: mode !== "snippet" });
  if (!check.ok) return refusedByPolicy(check.violations);
  const onFetch = upTo(config.fetch.maxRequestsPerCall, "fetches", (request: FetchRequest, fetchSignal: AbortSignal) =>
    guardedFetch(request, { limits: config.fetch, signal: fetchSignal }),
  );
  const host = { fetch: onFetch, callTool: served };
  return sandboxPool().run({ mode, code, input, limits: config.sandbox, nested }, host, signal);
}

/** A host service that refuses past `limit` requests in one call. */
function upTo<Request, Reply>(
  limit: number,
  what: string,
  serve: (request: Request, signal: AbortSignal) => Promise<Reply>,
): (request: Request, signal: AbortSignal) => Promise<Reply> {
  let made = 0;
  return (request, signal) =>
    ++made > limit ? Promise.reject(new Error(`More than ${limit} ${what} in one call.`)) : serve(request, signal);
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
