import type { CheckResult } from "../check";
import type { RunMode, SandboxOutcome } from "../pool";

// Placeholder while the Python sandbox is built: every Python call is refused.
const unavailable = "Python tools are not available yet.";

export async function checkPython(_code: string, _options: { requireEntryPoint: boolean }): Promise<CheckResult> {
  return { ok: false, violations: [{ message: unavailable, line: 1, column: 1 }] };
}

export async function runPython(
  _mode: RunMode,
  _code: string,
  _input?: unknown,
  _signal?: AbortSignal,
): Promise<SandboxOutcome> {
  return {
    ok: false,
    error: { kind: "error", message: unavailable },
    logs: [],
    consoleTruncated: false,
    durationMs: 0,
  };
}

export function pythonPool() {
  return { stats: () => ({ available: false, why: unavailable }) };
}
