import { describe, expect, it } from "vitest";
import { applyEvents, emptyTrace, type RunView, type TraceEvent } from "@/lib/trace/state";
import { costOf, formatUsd, latestTime, runTiming, runTokens, union } from "@/lib/trace/timing";

/** Events given as [at, event], numbered in order, folded into the run they make. */
function runOf(...timed: [number, Record<string, unknown>][]): RunView {
  const events = timed.map(([at, event], index) => ({ runId: "r1", id: index + 1, at, ...event }) as TraceEvent);
  return applyEvents(emptyTrace, events).runs[0];
}

const started = (at: number): [number, Record<string, unknown>] => [
  at,
  { type: "run_started", messageId: "m1", model: "gpt" },
];
const call = (at: number, step: number, callId: string, name = "calculate"): [number, Record<string, unknown>] => [
  at,
  { type: "tool_call", step, callId, name, input: {} },
];
const result = (
  at: number,
  step: number,
  callId: string,
  startedAt: number | undefined,
  ok = true,
): [number, Record<string, unknown>] => [
  at,
  {
    type: "tool_result",
    step,
    callId,
    name: "calculate",
    ok,
    ...(ok ? { output: 1 } : { error: "boom" }),
    durationMs: at - (startedAt ?? at),
    startedAt,
  },
];

const finished = (
  at: number,
  step: number,
  usage: { inputTokens: number; outputTokens: number },
  model: { firstByteAt: number; lastByteAt: number },
): [number, Record<string, unknown>] => [at, { type: "step_finished", step, finishReason: "tool-calls", usage, model }];

/**
 * A run of two steps from 1,000 to 2,000: step 1's model call waits 100 ms for its first byte and streams 100 more,
 * then three calls run side by side (1,210–1,500, 1,210–1,300, 1,250–1,600, one failing); step 2's model call runs
 * 1,650–1,900; the run ends at 2,000.
 */
const parallel = runOf(
  started(1_000),
  [1_000, { type: "step_started", step: 1 }],
  call(1_200, 1, "a"),
  call(1_200, 1, "b"),
  call(1_200, 1, "c"),
  result(1_300, 1, "b", 1_210),
  result(1_500, 1, "a", 1_210),
  result(1_600, 1, "c", 1_250, false),
  finished(1_610, 1, { inputTokens: 1_000, outputTokens: 200 }, { firstByteAt: 1_100, lastByteAt: 1_200 }),
  [1_650, { type: "step_started", step: 2 }],
  finished(1_950, 2, { inputTokens: 3_000, outputTokens: 800 }, { firstByteAt: 1_700, lastByteAt: 1_900 }),
  [2_000, { type: "run_finished", status: "completed", steps: 2 }],
);

describe("a run's timing", () => {
  it("has a row per model call and per tool call, relative to the run's start, the failure marked", () => {
    const { rows } = runTiming(parallel);
    expect(
      rows.map(({ kind, label, start, end, failed, open }) => ({ kind, label, start, end, failed, open })),
    ).toEqual([
      { kind: "model", label: "Step 1", start: 0, end: 200, failed: false, open: false },
      { kind: "tool", label: "calculate", start: 210, end: 500, failed: false, open: false },
      { kind: "tool", label: "calculate", start: 210, end: 300, failed: false, open: false },
      { kind: "tool", label: "calculate", start: 250, end: 600, failed: true, open: false },
      { kind: "model", label: "Step 2", start: 650, end: 900, failed: false, open: false },
    ]);
    // The wait for the first byte, inside the model call's bar; each row names its card and its step's.
    expect(rows[0]).toMatchObject({
      firstByte: 100,
      eventId: 2,
      stepEventId: 2,
      tokens: { input: 1_000, output: 200 },
    });
    expect(rows[4]).toMatchObject({ firstByte: 700, tokens: { input: 3_000, output: 800 } });
    expect(rows.slice(1, 4).map((row) => [row.eventId, row.stepEventId, row.callIndex])).toEqual([
      [3, 2, 0],
      [4, 2, 1],
      [5, 2, 2],
    ]);
  });

  it("splits the time into model, tools (overlapping calls counted once) and the rest, summing to the run's", () => {
    // Model 0–200 and 650–900; tools 210–600 as one union; the rest: 200–210, 600–650, 900–1,000.
    expect(runTiming(parallel).split).toEqual({ modelMs: 450, toolsMs: 390, otherMs: 160, totalMs: 1_000 });
  });

  it("counts a tool call's time inside a model call once, as the model's", () => {
    const overlapping = runOf(
      started(0),
      [0, { type: "step_started", step: 1 }],
      call(50, 1, "a"),
      result(300, 1, "a", 50),
      [
        310,
        { type: "step_finished", step: 1, finishReason: "tool-calls", model: { firstByteAt: 10, lastByteAt: 100 } },
      ],
      [400, { type: "run_finished", status: "completed", steps: 1 }],
    );
    expect(runTiming(overlapping).split).toEqual({ modelMs: 100, toolsMs: 200, otherMs: 100, totalMs: 400 });
  });

  it("merges intervals into their union", () => {
    expect(
      union([
        { start: 5, end: 9 },
        { start: 0, end: 2 },
        { start: 1, end: 3 },
        { start: 9, end: 10 },
        { start: 4, end: 4 },
      ]),
    ).toEqual([
      { start: 0, end: 3 },
      { start: 5, end: 10 },
    ]);
  });

  it("sums the tokens per run and prices them, or leaves the cost out without a price", () => {
    const tokens = runTokens(parallel);
    expect(tokens).toEqual({ input: 4_000, output: 1_000, uncounted: 0 });
    // $0.40 per million in, $1.60 per million out.
    expect(costOf(tokens, { input: 0.4, output: 1.6 })).toBeCloseTo(0.0032, 10);
    expect(costOf(tokens, undefined)).toBeUndefined();
    expect(runTiming(parallel).tokens).toEqual(tokens);
    expect(formatUsd(0.0032)).toBe("$0.0032");
    expect(formatUsd(12.345)).toBe("$12.35");
  });

  it("reads older logs, without the model's bytes or a call's start: the model call ends where the calls begin", () => {
    const older = runOf(
      started(0),
      [0, { type: "step_started", step: 1 }],
      call(120, 1, "a"),
      result(180, 1, "a", undefined),
      [190, { type: "step_finished", step: 1, finishReason: "tool-calls" }],
      [200, { type: "step_started", step: 2 }],
      [450, { type: "step_finished", step: 2, finishReason: "stop" }],
      [500, { type: "run_finished", status: "completed", steps: 2 }],
    );
    const { rows, split, tokens } = runTiming(older);
    expect(rows.map(({ kind, start, end, firstByte }) => ({ kind, start, end, firstByte }))).toEqual([
      { kind: "model", start: 0, end: 120, firstByte: undefined },
      { kind: "tool", start: 120, end: 180, firstByte: undefined },
      { kind: "model", start: 200, end: 450, firstByte: undefined },
    ]);
    expect(split).toEqual({ modelMs: 370, toolsMs: 60, otherMs: 70, totalMs: 500 });
    // No usage in those logs: no tokens, and the steps that lack a count are said.
    expect(tokens).toEqual({ input: 0, output: 0, uncounted: 2 });
  });

  it("draws a running run's open calls to now, and by default to the latest time its events tell", () => {
    const running = runOf(
      started(0),
      [0, { type: "step_started", step: 1 }],
      call(100, 1, "a"),
      call(100, 1, "b"),
      result(250, 1, "b", 110),
      [300, { type: "text_delta", step: 1, delta: "ignored by the clock" }],
    );
    expect(latestTime(running)).toBe(250);
    const byEvents = runTiming(running);
    expect(byEvents.split.totalMs).toBe(250);
    expect(byEvents.rows.map(({ start, end, open }) => [start, end, open])).toEqual([
      [0, 100, false],
      [100, 250, true],
      [110, 250, false],
    ]);
    const later = runTiming(running, 1_000);
    expect(later.rows[1]).toMatchObject({ start: 100, end: 1_000, open: true });
    expect(later.split).toEqual({ modelMs: 100, toolsMs: 900, otherMs: 0, totalMs: 1_000 });
    // The step still streams: its tokens are not missing, only not in yet.
    expect(later.tokens.uncounted).toBe(0);
  });

  it("shows a model call still streaming as open, and one that failed the run as failed", () => {
    const streaming = runOf(started(0), [10, { type: "step_started", step: 1 }]);
    expect(runTiming(streaming, 400).rows).toMatchObject([{ kind: "model", start: 10, end: 400, open: true }]);
    const failed = runOf(
      started(0),
      [10, { type: "step_started", step: 1 }],
      [500, { type: "error", message: "The model sent nothing for 60000 ms.", code: "model_error" }],
      [510, { type: "run_finished", status: "error", steps: 1 }],
    );
    const { rows, split, tokens } = runTiming(failed, 99_999);
    expect(rows).toMatchObject([{ kind: "model", start: 10, end: 510, failed: true, open: false }]);
    expect(split).toEqual({ modelMs: 500, toolsMs: 0, otherMs: 10, totalMs: 510 });
    expect(tokens.uncounted).toBe(1);
  });

  it("ends a finished run's call that never got its result at the run's end, marked open", () => {
    const cancelled = runOf(started(0), [0, { type: "step_started", step: 1 }], call(100, 1, "a"), [
      300,
      { type: "run_finished", status: "cancelled", steps: 1 },
    ]);
    expect(runTiming(cancelled, 5_000).rows[1]).toMatchObject({ start: 100, end: 300, open: true, failed: false });
  });
});
