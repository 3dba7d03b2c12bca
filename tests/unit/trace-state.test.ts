import { describe, expect, it } from "vitest";
import { answerOf, applyEvents, emptyTrace, planOf, type ToolCallView, type TraceEvent } from "@/lib/trace/state";

const tool = {
  id: "t1",
  name: "shout",
  description: "Shout.",
  parametersSchema: { type: "object" },
  code: "function run() {}",
  version: 1,
};
const events = [
  { type: "run_started", messageId: "m1", model: "gpt" },
  { type: "step_started", step: 1 },
  { type: "reasoning_delta", step: 1, delta: "Need " },
  { type: "reasoning_delta", step: 1, delta: "a tool." },
  { type: "text_delta", step: 1, delta: "Building." },
  { type: "tool_call", step: 1, callId: "c1", name: "register_tool", input: { name: "shout" } },
  { type: "tool_registered", step: 1, callId: "c1", tool },
  {
    type: "tool_result",
    step: 1,
    callId: "c1",
    name: "register_tool",
    ok: true,
    output: { registered: "shout" },
    durationMs: 4,
  },
  { type: "step_finished", step: 1, finishReason: "tool-calls" },
  { type: "step_started", step: 2 },
  { type: "text_delta", step: 2, delta: "HELLO" },
  { type: "text_delta", step: 2, delta: "!" },
  { type: "run_finished", status: "completed", steps: 2 },
].map((event, index) => ({ ...event, runId: "r1", id: index + 1, at: 1_000 + 10 * index }) as TraceEvent);

describe("the trace reducer", () => {
  it("shows a run taken over by another instance: the notice, the interrupted step and the step done again", () => {
    const taken = [
      { type: "run_started", messageId: "m1", model: "gpt" },
      { type: "step_started", step: 1 },
      { type: "text_delta", step: 1, delta: "Half an ans" },
      {
        type: "run_resumed",
        step: 0,
        message: "The server running this run stopped; another one took it over and goes on after step 0.",
        segment: "on-B",
      },
      { type: "step_started", step: 1 },
      { type: "text_delta", step: 1, delta: "A whole answer." },
      { type: "step_finished", step: 1, finishReason: "stop" },
      { type: "run_finished", status: "completed", steps: 1 },
    ].map((event, index) => ({ ...event, runId: "r1", id: index + 1, at: index }) as TraceEvent);
    const state = applyEvents(emptyTrace, taken);
    // Where the part of the log the second instance wrote begins: a client names it when it reconnects.
    expect(state.segment).toEqual({ id: 4, token: "on-B" });
    const [run] = state.runs;
    expect(run.resumed).toMatch(/took it over/);
    expect(run.steps.map((step) => [step.step, step.text, step.finishReason])).toEqual([
      [1, "Half an ans", undefined],
      [1, "A whole answer.", "stop"],
    ]);
    expect(answerOf(run)).toBe("A whole answer.");
  });

  it("folds events into runs, steps and calls", () => {
    const state = applyEvents(emptyTrace, events);
    expect(state.lastEventId).toBe(events.length);
    expect(state.segment).toEqual({ id: 1 });
    const [run] = state.runs;
    expect(run).toMatchObject({ runId: "r1", status: "completed", model: "gpt" });
    expect(run.steps[0]).toMatchObject({ reasoning: "Need a tool.", text: "Building.", finishReason: "tool-calls" });
    expect(run.steps[0].calls[0]).toMatchObject({ status: "ok", registered: tool, durationMs: 4 });
    expect(answerOf(run)).toBe("HELLO!");
  });

  it("keeps when each step, model call and tool call began and ended, and the ids that link to them", () => {
    const timed = [
      { type: "run_started", messageId: "m1", model: "gpt", at: 100 },
      { type: "step_started", step: 1, at: 110 },
      { type: "tool_call", step: 1, callId: "c1", name: "a", input: {}, at: 300 },
      { type: "tool_call", step: 1, callId: "c2", name: "b", input: {}, at: 301 },
      {
        type: "tool_result",
        step: 1,
        callId: "c2",
        name: "b",
        ok: false,
        error: "no",
        durationMs: 40,
        startedAt: 305,
        at: 345,
      },
      { type: "tool_result", step: 1, callId: "c1", name: "a", ok: true, output: 1, durationMs: 90, at: 400 },
      {
        type: "step_finished",
        step: 1,
        finishReason: "tool-calls",
        usage: { inputTokens: 10, outputTokens: 5 },
        model: { firstByteAt: 150, lastByteAt: 290 },
        at: 401,
      },
      { type: "run_finished", status: "completed", steps: 1, at: 410 },
    ].map((event, index) => ({ ...event, runId: "r1", id: index + 1 }) as TraceEvent);
    const [run] = applyEvents(emptyTrace, timed).runs;
    expect(run).toMatchObject({ startedAt: 100, endedAt: 410 });
    expect(run.steps[0]).toMatchObject({
      eventId: 2,
      startedAt: 110,
      endedAt: 401,
      model: { firstByteAt: 150, lastByteAt: 290 },
    });
    expect(run.steps[0].calls.map(({ eventId, startedAt, endedAt }) => [eventId, startedAt, endedAt])).toEqual([
      [3, 300, 400],
      [4, 305, 345],
    ]);
  });

  it("shows annotations on the event they name until they are deleted, and each reviewer's latest verdict", () => {
    const author = (key: string) => ({ key, name: key });
    const annotation = (id: string, eventId: number, key = "owner") => ({
      id,
      runId: "r1",
      eventId,
      label: "wrong tool",
      note: `note ${id}`,
      author: author(key),
      at: 5,
    });
    const verdict = (id: string, given: "up" | "down", key: string) => ({
      id,
      runId: "r1",
      verdict: given,
      author: author(key),
      at: 6,
    });
    const reviewed = [
      ...events,
      ...[
        { type: "annotation_added", annotation: annotation("a1", 6) },
        { type: "annotation_added", annotation: annotation("a2", 6, "r-1") },
        { type: "annotation_added", annotation: annotation("a3", 2) },
        { type: "verdict_added", verdict: verdict("v1", "up", "owner") },
        { type: "verdict_added", verdict: verdict("v2", "up", "r-1") },
        { type: "verdict_added", verdict: verdict("v3", "down", "owner") },
        { type: "annotation_deleted", annotationId: "a1" },
        { type: "annotation_deleted", annotationId: "a3" },
        // Written into the log by a later run that was running: the reviewed run is the annotation's or verdict's.
      ].map((event, index) => ({ ...event, runId: "r2", id: events.length + index + 1, at: 9 }) as TraceEvent),
    ];
    const [run] = applyEvents(emptyTrace, reviewed).runs;
    expect(run.annotations).toEqual({ 6: [annotation("a2", 6, "r-1")] });
    expect(run.verdicts.map(({ id, verdict: given }) => [id, given])).toEqual([
      ["v3", "down"],
      ["v2", "up"],
    ]);
  });

  it("ignores events it has already applied, so a replay or a resume never doubles anything", () => {
    const once = applyEvents(emptyTrace, events);
    const replayed = applyEvents(applyEvents(applyEvents(emptyTrace, events.slice(0, 8)), events.slice(3, 11)), events);
    expect(replayed).toEqual(once);
    expect(applyEvents(once, events)).toBe(once);
  });

  it("copies only what an event touches", () => {
    const before = applyEvents(emptyTrace, events.slice(0, 10));
    const after = applyEvents(before, [events[10]]);
    expect(after.runs[0].steps[0]).toBe(before.runs[0].steps[0]);
    expect(after.runs[0].steps[1]).not.toBe(before.runs[0].steps[1]);
  });
});

describe("planOf: the calls the trace shows as a plan", () => {
  const call = (change: Partial<ToolCallView> = {}): ToolCallView => ({
    eventId: 1,
    startedAt: 0,
    callId: "c1",
    name: "think",
    input: { thought: "Write a counter, then call it." },
    status: "ok",
    ...change,
  });

  it("is a think call's thought, while it runs and once acknowledged", () => {
    expect(planOf(call({ status: "running" }))).toBe("Write a counter, then call it.");
    expect(planOf(call({ output: "Noted." }))).toBe("Write a counter, then call it.");
  });

  it("leaves to the ordinary card any other tool, and a think call that failed, asked a person or has no thought", () => {
    expect(planOf(call({ name: "calculate" }))).toBeUndefined();
    expect(planOf(call({ status: "error", error: "thought: at most 2000 characters" }))).toBeUndefined();
    expect(planOf(call({ approval: { approvalId: "a1", state: "pending" } }))).toBeUndefined();
    expect(planOf(call({ status: "running", input: { thought: 42 } }))).toBeUndefined();
  });
});
