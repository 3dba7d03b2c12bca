import { config } from "@/lib/settings/config";
import { processWide } from "@/lib/platform/process-wide";
import type { CheckResult } from "../check";
import type { RunMode, SandboxOutcome } from "../pool";
import type { Violation } from "../policy";
import { pythonPolicy } from "../policy";
import { PythonPool, type PythonVerdict } from "./pool";

type Refused = Extract<SandboxOutcome, { ok: false }> & { violations?: Violation[] };

// One pool per server process, whatever loads this module.
export function pythonPool(): PythonPool {
  return processWide("pythonPool", () => new PythonPool(config.python.workers, config.sandbox.memoryBytes));
}

/**
 * The policy's verdict on Python code, from Python's own `ast` in a sandbox process. With the test-only switch, only
 * that it parses and defines its entry point: the code is registered, and its calls show what the sandbox holds.
 */
export async function checkPython(code: string, options: { requireEntryPoint: boolean }): Promise<CheckResult> {
  const early = before(code);
  if (early)
    return { ok: false, violations: early.violations ?? [{ message: early.error.message, line: 1, column: 1 }] };
  const verdict = (await pythonPool().run({
    mode: "check",
    code,
    requireEntryPoint: options.requireEntryPoint,
    skipPolicy: config.python.skipPolicy,
    limits: config.sandbox,
  })) as PythonVerdict | SandboxOutcome;
  if ("violations" in verdict) return { ok: false, violations: verdict.violations };
  if (!verdict.ok && "error" in verdict)
    return { ok: false, violations: [{ message: `The check failed: ${verdict.error.message}`, line: 1, column: 1 }] };
  return { ok: true };
}

/** Run Python in a sandbox process: the policy again (unless a test turned it off), then the call under the limits. */
export async function runPython(
  mode: RunMode,
  code: string,
  input?: unknown,
  signal?: AbortSignal,
): Promise<SandboxOutcome & { violations?: Violation[] }> {
  const early = before(code);
  if (early) return early;
  const outcome = await pythonPool().run(
    { mode, code, input, skipPolicy: config.python.skipPolicy, limits: config.sandbox },
    signal,
  );
  if ("violations" in outcome) {
    const { violations } = outcome;
    const message = `Code refused by policy: ${violations.map((v) => `line ${v.line}, column ${v.column}: ${v.message}`).join("; ")}`;
    return {
      ok: false,
      error: { kind: "error", message },
      violations,
      logs: [],
      consoleTruncated: false,
      durationMs: 0,
    };
  }
  return outcome as SandboxOutcome;
}

/** What is refused before a process is asked: a server without the sandbox, code over the size limit. */
function before(code: string): Refused | undefined {
  const availability = pythonPool().available();
  const refuse = (message: string, violations?: Violation[]): Refused => ({
    ok: false,
    error: { kind: "error", message },
    violations,
    logs: [],
    consoleTruncated: false,
    durationMs: 0,
  });
  if (!availability.ok) return refuse(availability.why);
  if (Buffer.byteLength(code, "utf8") > pythonPolicy.maxCodeBytes) {
    const message = `Code is larger than the ${pythonPolicy.maxCodeBytes / 1024} KB limit.`;
    return refuse(message, [{ message, line: 1, column: 1 }]);
  }
  return undefined;
}
