import { config } from "@/lib/settings/config";
import { processWide } from "@/lib/platform/process-wide";
import type { CheckResult } from "../check";
import { failure, type RunMode } from "../pool";
import { pythonPolicy } from "../policy";
import { PythonPool, type PythonJob, type PythonOutcome } from "./pool";

// One pool per server process, whatever loads this module.
export function pythonPool(): PythonPool {
  return processWide("pythonPool", () => new PythonPool(config.python.workers, config.sandbox.memoryBytes));
}

/**
 * The policy's verdict on Python code, from Python's own `ast` in a sandbox process. With the test-only switch, only
 * that it parses and defines its entry point: the code is registered, and its calls show what the sandbox holds.
 * With `uses`, each tools.call must name one of those tools, as a literal.
 */
export async function checkPython(
  code: string,
  { requireEntryPoint = true, uses }: { requireEntryPoint?: boolean; uses?: readonly string[] } = {},
): Promise<CheckResult> {
  const verdict =
    before(code) ??
    (await pythonPool().run({
      mode: "check",
      code,
      requireEntryPoint,
      uses,
      skipPolicy: config.python.skipPolicy,
      limits: config.sandbox,
    }));
  if ("violations" in verdict) return { ok: false, violations: verdict.violations };
  if (!verdict.ok && "error" in verdict)
    return { ok: false, violations: [{ message: verdict.error.message, line: 1, column: 1 }] };
  return { ok: true };
}

/**
 * Run Python in a sandbox process: the policy again (unless a test turned it off), then the call under the limits.
 * Code the policy refuses comes back as its violations, for runInSandbox to word as it does JavaScript's. The
 * services serve the code's tools.call and its requests; `nested`: another tool's code called this one.
 */
export async function runPython(
  mode: RunMode,
  code: string,
  input?: unknown,
  signal?: AbortSignal,
  services: Pick<PythonJob, "callTool" | "fetch" | "nested" | "workspace" | "secrets"> = {},
): Promise<PythonOutcome> {
  return (
    before(code) ??
    ((await pythonPool().run(
      { mode, code, input, skipPolicy: config.python.skipPolicy, limits: config.sandbox, ...services },
      signal,
    )) as PythonOutcome)
  );
}

/** What is refused before a process is asked: a server without the sandbox, code over the size limit. */
function before(code: string): PythonOutcome | undefined {
  const availability = pythonPool().available();
  if (!availability.ok) return failure({ kind: "error", message: availability.why }, 0);
  if (Buffer.byteLength(code, "utf8") > pythonPolicy.maxCodeBytes) {
    const message = `Code is larger than the ${pythonPolicy.maxCodeBytes / 1024} KB limit.`;
    return {
      ok: false,
      violations: [{ message, line: 1, column: 1 }],
      logs: [],
      consoleTruncated: false,
      durationMs: 0,
    };
  }
  return undefined;
}
