import { describe, expect, it } from "vitest";
import type { AgentEvent, LoggedEvent, SequencedEvent } from "@/lib/contract/events";
import { CUT_RUN_STATUS } from "@/lib/contract/log";
import { forkedLog, logBeforeRun } from "@/lib/trace/fork";

type Event = AgentEvent & { runId: string; at?: number };

/** A log numbered 1, 2, 3 …, each event 10 ms after the one before. */
const logOf = (events: Event[]): SequencedEvent[] =>
  events.map((event, index) => ({ seq: index + 1, event: { at: 1_000 + 10 * index, ...event } as LoggedEvent }));

const author = { key: "k", name: "Reviewer 1" };
const review = (runId: string, eventId: number): Event[] => [
  { type: "annotation_added", runId, annotation: { id: "a1", runId, eventId, label: "bug", note: "", author, at: 1 } },
  { type: "verdict_added", runId, verdict: { id: "v1", runId, verdict: "down", author, at: 1 } },
  { type: "annotation_deleted", runId, annotationId: "a1" },
];

// Run r1: three steps (a registration, a call, the answer); reviews after it; run r2: a step cut short by an error.
const log = logOf([
  { type: "run_started", runId: "r1", messageId: "m1", model: "gpt" }, // 1
  { type: "step_started", runId: "r1", step: 1 }, // 2
  { type: "tool_call", runId: "r1", step: 1, callId: "c1", name: "register_tool", input: {} }, // 3
  { type: "tool_result", runId: "r1", step: 1, callId: "c1", name: "register_tool", ok: true, durationMs: 1 }, // 4
  { type: "step_finished", runId: "r1", step: 1, finishReason: "tool-calls" }, // 5
  { type: "step_started", runId: "r1", step: 2 }, // 6
  { type: "text_delta", runId: "r1", step: 2, delta: "Calling." }, // 7
  { type: "tool_call", runId: "r1", step: 2, callId: "c2", name: "shout", input: { text: "hi" } }, // 8
  { type: "tool_result", runId: "r1", step: 2, callId: "c2", name: "shout", ok: true, durationMs: 1 }, // 9
  { type: "step_finished", runId: "r1", step: 2, finishReason: "tool-calls" }, // 10
  { type: "step_started", runId: "r1", step: 3 }, // 11
  { type: "text_delta", runId: "r1", step: 3, delta: "HI!" }, // 12
  { type: "step_finished", runId: "r1", step: 3, finishReason: "stop" }, // 13
  { type: "run_finished", runId: "r1", status: "completed", steps: 3 }, // 14
  ...review("r1", 6), // 15, 16, 17
  { type: "run_started", runId: "r2", messageId: "m3", model: "gpt" }, // 18
  { type: "step_started", runId: "r2", step: 1 }, // 19
  { type: "text_delta", runId: "r2", step: 1, delta: "Half" }, // 20
  { type: "error", runId: "r2", code: "model_failed", message: "The model failed." }, // 21
  { type: "run_finished", runId: "r2", status: "error", steps: 0 }, // 22
]);
const types = (events: LoggedEvent[]) => events.map((event) => event.type);
const REVIEWS = ["annotation_added", "annotation_deleted", "verdict_added"];

describe("what a fork copies of the log", () => {
  it("copies everything but the reviews when it is whole", () => {
    const copy = forkedLog(log)!;
    expect(copy.events).toHaveLength(log.length - 3);
    expect(types(copy.events).filter((type) => REVIEWS.includes(type))).toEqual([]);
    expect([...copy.runIds]).toEqual(["r1", "r2"]);
    expect(copy.cut).toBeUndefined();
  });

  it("from a step's card: up to its step_finished, then closes the run it cut short", () => {
    const copy = forkedLog(log, 6)!;
    expect(types(copy.events)).toEqual([...types(log.slice(0, 10).map(({ event }) => event)), "run_finished"]);
    expect(copy.events.at(-1)).toEqual({
      type: "run_finished",
      status: CUT_RUN_STATUS,
      steps: 2,
      runId: "r1",
      at: 1_090,
    });
    expect(copy.cut).toEqual({ runId: "r1", steps: 2, endedAt: 1_090 });
    expect([...copy.runIds]).toEqual(["r1"]);
  });

  it("from a tool call's card: up to the end of the call's step", () => {
    expect(forkedLog(log, 8)).toEqual(forkedLog(log, 6));
    expect(forkedLog(log, 3)!.events.at(-2)).toMatchObject({ type: "step_finished", step: 1 });
  });

  it("takes a run whole when only its end follows the step, and drops the reviews after it", () => {
    const copy = forkedLog(log, 11)!;
    expect(copy.events).toEqual(log.slice(0, 14).map(({ event }) => event));
    expect(copy.cut).toBeUndefined();
  });

  it("takes a step that never finished up to its last event, and the failed run's own end after it", () => {
    const copy = forkedLog(log, 19)!;
    expect(types(copy.events).slice(-5)).toEqual([
      "run_started",
      "step_started",
      "text_delta",
      "error",
      "run_finished",
    ]);
    expect(copy.events.at(-1)).toMatchObject({ status: "error" });
  });

  it("cuts a run still in progress after the step's last event stored so far", () => {
    const running = log.slice(0, 20);
    const copy = forkedLog(running, 19)!;
    expect(types(copy.events).slice(-3)).toEqual(["step_started", "text_delta", "run_finished"]);
    expect(copy.cut).toEqual({ runId: "r2", steps: 1, endedAt: running.at(-1)!.event.at });
  });

  it("ends the step where a run taken over started it again", () => {
    const resumed = logOf([
      { type: "run_started", runId: "r1", messageId: "m1", model: "gpt" },
      { type: "step_started", runId: "r1", step: 1 },
      { type: "text_delta", runId: "r1", step: 1, delta: "Half" },
      { type: "run_resumed", runId: "r1", step: 0, message: "Taken over." },
      { type: "step_started", runId: "r1", step: 1 },
      { type: "text_delta", runId: "r1", step: 1, delta: "Whole" },
      { type: "step_finished", runId: "r1", step: 1, finishReason: "stop" },
      { type: "run_finished", runId: "r1", status: "completed", steps: 1 },
    ]);
    expect(types(forkedLog(resumed, 2)!.events)).toEqual(["run_started", "step_started", "text_delta", "run_finished"]);
    expect(forkedLog(resumed, 5)!.events).toHaveLength(8);
  });

  it("ignores reviews a running run took into its log in the middle of a step", () => {
    // Written through the running run's channel, with its id, between the step's call and its result.
    const events = log.map(({ event }) => event);
    const withReviews = logOf([...events.slice(0, 8), ...review("r1", 2), ...events.slice(8)]);
    const copy = forkedLog(withReviews, 8)!;
    expect(types(copy.events)).toEqual(types(forkedLog(log, 8)!.events));
    expect(copy.cut).toMatchObject({ runId: "r1", steps: 2 });
  });

  it("names no step from any other event", () => {
    for (const eventId of [0, 1, 4, 7, 14, 15, 99]) expect(forkedLog(log, eventId)).toBeUndefined();
  });
});

describe("the log a rerun's fork copies", () => {
  it("holds every run before the one run again, whole, and nothing of it or of reviews", () => {
    const copied = logBeforeRun(log, "r2")!;
    expect(copied.whole).toBe(false);
    expect(copied.cut).toBeUndefined();
    expect(copied.runIds).toEqual(new Set(["r1"]));
    expect(copied.events.map(({ type }) => type)).toEqual(log.slice(0, 14).map(({ event }) => event.type));
    expect(logBeforeRun(log, "r1")).toEqual({ whole: false, events: [], runIds: new Set() });
    expect(logBeforeRun(log, "r9")).toBeUndefined();
  });
});
