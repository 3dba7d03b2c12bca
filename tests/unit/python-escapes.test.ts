import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PythonPool, type PythonOutcome } from "@/lib/sandbox/python/pool";
import { config } from "@/lib/settings/config";
import { CANARY_VARIABLE, EscapeTargets, escapeForms, victim, type EscapeForm } from "../support/python-escapes";

// The sandbox level: the Python pool in this process, each form run with the policy check off (the harness's own
// switch, as TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY sets it); with it on, the forms go through the production server
// (tests/integration/python-escapes.test.ts), registration included. What must hold either way: no canary in
// anything that comes back, no connection to the listener, no host file, the next call on the same process served
// as if nothing had happened, and the pool healthy at the end.
const targets = new EscapeTargets();
process.env[CANARY_VARIABLE] = targets.canary;

// The server's limits, with a shorter clock for the forms (several spin until they are stopped); the ordinary call
// keeps the server's, since it may be a new process's first call on a busy machine.
const limits = { ...config.sandbox, timeoutMs: 2000 };

/**
 * Pools of one process each, used one call pair at a time: the ordinary call after a form runs on the process the
 * form ran on, unless the pool replaced it because the form left something behind.
 */
const lanes = [new PythonPool(1, limits.memoryBytes), new PythonPool(1, limits.memoryBytes)];
const idle = [...lanes];
const waiting: ((lane: PythonPool) => void)[] = [];

async function onOneProcess<T>(work: (lane: PythonPool) => Promise<T>): Promise<T> {
  const lane = idle.pop() ?? (await new Promise<PythonPool>((resolve) => waiting.push(resolve)));
  try {
    return await work(lane);
  } finally {
    const next = waiting.shift();
    if (next) next(lane);
    else idle.push(lane);
  }
}

beforeAll(async () => {
  await targets.start();
  await Promise.all(lanes.map((lane) => lane.warm()));
});
afterAll(async () => {
  await Promise.all(lanes.map((lane) => lane.close()));
  await targets.stop();
});

/** The form, then an ordinary call on the same process: both outcomes. */
function attempt(form: EscapeForm, skipPolicy: boolean) {
  return onOneProcess(async (lane) => {
    const outcome = (await lane.run({ mode: "tool", code: targets.code(form), input: {}, skipPolicy, limits })) as
      PythonOutcome | { ok: false; violations: { line: number; column: number; message: string }[] };
    const next = await lane.run({ mode: "tool", code: victim.code, input: victim.input, limits: config.sandbox });
    return { outcome, next };
  });
}

function expectContained(form: EscapeForm, { outcome, next }: Awaited<ReturnType<typeof attempt>>): void {
  expect(targets.breaches(outcome), form.note).toEqual([]);
  expect(targets.breaches(next)).toEqual([]);
  // Whatever the form did, the next caller's tool sees a pristine interpreter.
  expect(next, `after ${form.id}: ${JSON.stringify(next)}`).toMatchObject({
    ok: true,
    output: victim.output,
    logs: ["victim"],
  });
}

describe("the Python escape corpus", () => {
  it("covers the classes the issue names, with at least 60 forms", () => {
    expect(escapeForms.length).toBeGreaterThanOrEqual(60);
    expect(new Set(escapeForms.map((form) => form.id)).size).toBe(escapeForms.length);
    expect(lanes[0].available()).toEqual({ ok: true });
  });

  describe("with the policy check off", () => {
    it.concurrent.each(escapeForms.map((form) => [form.id, form] as const))(
      "contains %s",
      async (_id, form) => {
        const result = await attempt(form, true);
        expect(result.outcome).not.toHaveProperty("violations");
        expectContained(form, result);
      },
      60_000,
    );
  });

  it("leaves the pool healthy: an ordinary call answers at once and correctly", async () => {
    await Promise.all(lanes.map((lane) => lane.warm()));
    for (const lane of lanes) {
      const started = performance.now();
      const outcome = await lane.run({ mode: "tool", code: victim.code, input: victim.input, limits });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(outcome).toMatchObject({ ok: true, output: victim.output });
      // The next call's child is forked once this one answers, and is ready a moment later.
      await expect
        .poll(() => lane.stats(), { interval: 10 })
        .toMatchObject({ processes: 1, ready: 1, busy: 0, queued: 0 });
    }
    expect(targets.connections).toEqual([]);
    expect(targets.hostFiles()).toEqual([]);
  });
});
