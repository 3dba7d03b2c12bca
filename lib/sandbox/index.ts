import { config } from "@/lib/settings/config";
import { checkCode, type Violation } from "./check";
import { guardedFetch } from "./fetch-guard";
import { processWide } from "@/lib/platform/process-wide";
import { SandboxPool, type RunMode, type SandboxOutcome } from "./pool";

export { checkCode, type Violation } from "./check";

export type SandboxResult = SandboxOutcome | (Extract<SandboxOutcome, { ok: false }> & { violations: Violation[] });

// One pool per server process, whatever loads this module (and dev-mode reloads leak no threads).
export function sandboxPool(): SandboxPool {
  return processWide("sandboxPool", () => new SandboxPool(config.sandboxWorkers));
}

/**
 * Run code in the sandbox: the policy again, whatever checked it before, then QuickJS under the limits. `tool` calls
 * `run(input)`, `compile` checks that it defines `run`, `snippet` returns its completion value; `signal` stops it all.
 */
export async function runInSandbox(
  mode: RunMode,
  code: string,
  input?: unknown,
  signal?: AbortSignal,
): Promise<SandboxResult> {
  const check = checkCode(code, { requireEntryPoint: mode !== "snippet" });
  if (!check.ok) {
    return {
      ok: false,
      error: { kind: "error", message: `Code refused by policy: ${check.violations.map(formatViolation).join("; ")}` },
      violations: check.violations,
      logs: [],
      consoleTruncated: false,
      durationMs: 0,
    };
  }
  let fetches = 0;
  const onFetch = (request: Parameters<typeof guardedFetch>[0], fetchSignal: AbortSignal) => {
    if (++fetches > config.fetch.maxRequestsPerCall) {
      return Promise.reject(new Error(`More than ${config.fetch.maxRequestsPerCall} fetches in one call.`));
    }
    return guardedFetch(request, { limits: config.fetch, signal: fetchSignal });
  };
  return sandboxPool().run({ mode, code, input, limits: config.sandbox }, onFetch, signal);
}

export function formatViolation(violation: Violation): string {
  return `line ${violation.line}, column ${violation.column}: ${violation.message}`;
}
