import { config } from "@/lib/config";
import { checkCode, type Violation } from "./check";
import { guardedFetch } from "./fetch-guard";
import { SandboxPool, type RunMode, type SandboxOutcome } from "./pool";

export { checkCode, type Violation } from "./check";

export type SandboxResult =
  | (SandboxOutcome & { ok: true })
  | (SandboxOutcome & { ok: false; violations?: Violation[] });

// One pool per server process; kept on globalThis so that dev-mode reloads do not leak threads.
const globalPool = globalThis as unknown as { toolsmithSandbox?: SandboxPool };
export function sandboxPool(): SandboxPool {
  globalPool.toolsmithSandbox ??= new SandboxPool(config.sandboxWorkers);
  return globalPool.toolsmithSandbox;
}

/**
 * Run code in the sandbox: layer 1 (the static policy) is checked again on every run, whatever checked it before,
 * then layer 2 runs it in QuickJS under the configured limits. `tool` calls `run(input)`; `compile` only loads the
 * code and checks that it defines `run`; `snippet` returns the script's completion value.
 */
export async function runInSandbox(mode: RunMode, code: string, input?: unknown): Promise<SandboxResult> {
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
  const outcome = await sandboxPool().run({ mode, code, input, limits: config.sandbox }, (request) => {
    if (++fetches > config.fetch.maxRequestsPerCall) {
      return Promise.reject(new Error(`More than ${config.fetch.maxRequestsPerCall} fetches in one call.`));
    }
    return guardedFetch(request, { limits: config.fetch });
  });
  return outcome.ok ? { ...outcome, ok: true } : { ...outcome, ok: false, error: explain(outcome.error!) };
}

export function formatViolation(violation: Violation): string {
  return `line ${violation.line}, column ${violation.column}: ${violation.message}`;
}

/** Turn the runtime's terse limit errors into sentences the model can act on. */
function explain(error: NonNullable<SandboxOutcome["error"]>): NonNullable<SandboxOutcome["error"]> {
  const { timeoutMs, memoryBytes } = config.sandbox;
  switch (error.kind) {
    case "timeout":
      return { kind: "timeout", message: `The code ran longer than the ${timeoutMs} ms limit and was stopped.` };
    case "memory":
      return { kind: "memory", message: `The code used more than the ${memoryBytes / 1024 / 1024} MB memory limit and was stopped.` };
    case "stack":
      return { kind: "stack", message: "The code recursed too deeply (stack overflow)." };
    default:
      return error;
  }
}
