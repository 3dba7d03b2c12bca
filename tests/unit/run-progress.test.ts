import { describe, expect, it } from "vitest";
import type { AgentEvent, LoggedEvent } from "@/lib/contract/events";
import { progressOf } from "@/lib/runs/progress";

const logged = (...events: AgentEvent[]): LoggedEvent[] => events.map((event) => ({ ...event, runId: "run-1", at: 0 }));

const started = (step: number): AgentEvent => ({ type: "step_started", step });
const said = (step: number, delta: string): AgentEvent => ({ type: "text_delta", step, delta });
const called = (step: number, callId: string): AgentEvent => ({
  type: "tool_call",
  step,
  callId,
  name: "calculate",
  input: { expression: "1 + 1" },
});
const answered = (step: number, callId: string): AgentEvent => ({
  type: "tool_result",
  step,
  callId,
  name: "calculate",
  ok: true,
  output: 2,
  durationMs: 1,
});
const finished = (step: number): AgentEvent => ({ type: "step_finished", step, finishReason: "stop" });
const runStarted: AgentEvent = { type: "run_started", messageId: "m", model: "test-model" };

describe("progressOf: how far a run got, from its stored events", () => {
  it("a run with no step yet", () => {
    expect(progressOf(logged(runStarted))).toEqual({
      finishedSteps: 0,
      step: 0,
      toolsStarted: false,
      planFirst: false,
    });
  });

  it("counts the finished steps, and the step it was in", () => {
    const progress = progressOf(
      logged(
        runStarted,
        started(1),
        called(1, "a"),
        answered(1, "a"),
        finished(1),
        started(2),
        called(2, "b"),
        answered(2, "b"),
        finished(2),
        started(3),
        said(3, "Thinking"),
      ),
    );
    // Cut off while the model answered step 3: it goes on after step 2, and no tool of step 3 had started.
    expect(progress).toMatchObject({ finishedSteps: 2, step: 3, toolsStarted: false, answer: undefined });
    expect(progress.finished).toBeUndefined();
  });

  it("says when the unfinished step's tool calls had started", () => {
    const progress = progressOf(
      logged(runStarted, started(1), finished(1), started(2), said(2, "Let me"), called(2, "x")),
    );
    expect(progress).toMatchObject({ finishedSteps: 1, step: 2, toolsStarted: true, answer: undefined });
  });

  it("does not take the tool calls of a finished step for calls cut off", () => {
    // A run that reached its step ceiling, its last step with tool calls, and stopped before storing its end: it
    // ended at max_steps, nothing of it is unknown.
    const progress = progressOf(
      logged(
        started(1),
        called(1, "a"),
        answered(1, "a"),
        finished(1),
        started(2),
        called(2, "b"),
        answered(2, "b"),
        finished(2),
      ),
    );
    expect(progress).toMatchObject({ finishedSteps: 2, step: 2, toolsStarted: false, answer: undefined });
  });

  it("gives the answer when the last finished step called no tool", () => {
    const progress = progressOf(
      logged(
        started(1),
        called(1, "a"),
        answered(1, "a"),
        finished(1),
        started(2),
        said(2, "It is "),
        said(2, "2."),
        finished(2),
      ),
    );
    expect(progress).toMatchObject({ finishedSteps: 2, step: 2, toolsStarted: false, answer: "It is 2." });
  });

  it("gives an empty answer for a finished step with neither text nor calls (the model had answered)", () => {
    expect(progressOf(logged(started(1), finished(1))).answer).toBe("");
  });

  it("gives no answer when the last finished step called tools, whatever it said", () => {
    const progress = progressOf(
      logged(started(1), said(1, "Let me check."), called(1, "a"), answered(1, "a"), finished(1)),
    );
    expect(progress.answer).toBeUndefined();
  });

  it("gives no answer once a step after it began", () => {
    expect(progressOf(logged(started(1), said(1, "Hello"), finished(1), started(2))).answer).toBeUndefined();
  });

  it("drops what a dead instance streamed of a step that a takeover ran again", () => {
    const progress = progressOf(
      logged(
        started(1),
        called(1, "a"),
        answered(1, "a"),
        finished(1),
        started(2),
        said(2, "half an ans"),
        { type: "run_resumed", step: 1, message: "taken over" },
        started(2),
        said(2, "The answer."),
        finished(2),
      ),
    );
    expect(progress).toMatchObject({ finishedSteps: 2, step: 2, toolsStarted: false, answer: "The answer." });
  });

  it("reads run_finished: the run had ended, with its status and steps", () => {
    const progress = progressOf(
      logged(started(1), said(1, "Done."), finished(1), { type: "run_finished", status: "completed", steps: 1 }),
    );
    expect(progress.finished).toEqual({ status: "completed", steps: 1 });
    expect(progress).toMatchObject({ finishedSteps: 1, answer: "Done." });

    const cancelled = progressOf(
      logged(started(1), called(1, "a"), { type: "run_finished", status: "cancelled", steps: 1 }),
    );
    expect(cancelled.finished).toEqual({ status: "cancelled", steps: 1 });
  });
});
