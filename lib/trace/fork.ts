import { isReviewEvent, type LoggedEvent, type SequencedEvent } from "@/lib/contract/events";
import { CUT_RUN_STATUS, type ForkedLog } from "@/lib/contract/log";

/**
 * The events a fork copies: all of them, or with `throughEventId` (a step's step_started or a tool call's
 * tool_call) those up to the end of that step, its step_finished, or the last event the step has when it never
 * finished. A step followed only by its run's end (its error, its run_finished) takes its run whole; otherwise the
 * run is cut there and closed. Review events are dropped. Undefined when `throughEventId` names no step or call.
 */
export function forkedLog(log: SequencedEvent[], throughEventId?: number): ForkedLog | undefined {
  // Reviewers' notes belong to the conversation they were written on: a fork starts without them.
  const events = log.filter(({ event }) => !isReviewEvent(event));
  if (throughEventId === undefined)
    return { whole: true, events: events.map(({ event }) => event), runIds: runsOf(events) };

  const card = events.findIndex(({ seq }) => seq === throughEventId);
  const named = events[card]?.event;
  if (!named || (named.type !== "step_started" && named.type !== "tool_call")) return undefined;
  const { runId, step } = named;
  const start = events.findLastIndex(
    ({ event }, index) =>
      index <= card && event.runId === runId && event.type === "step_started" && event.step === step,
  );
  // Runs follow one another in the log (review events, interleaved, are gone): another run's event ends this one.
  let last = start;
  for (let index = start + 1; index < events.length; index++) {
    const { event } = events[index];
    if (event.runId !== runId || event.type === "step_started" || event.type === "run_resumed" || !("step" in event))
      break;
    if (event.step !== step) continue;
    last = index;
    if (event.type === "step_finished") break;
  }

  let end = last + 1;
  while (end < events.length && events[end].event.runId === runId && events[end].event.type === "error") end++;
  if (end < events.length && events[end].event.runId === runId && events[end].event.type === "run_finished") {
    const copied = events.slice(0, end + 1);
    return { whole: false, events: copied.map(({ event }) => event), runIds: runsOf(copied) };
  }
  const copied = events.slice(0, last + 1);
  // The copy ends where its last event did, so the run's duration stays what it was up to there.
  const cut = { runId, steps: step, endedAt: events[last].event.at };
  const closing: LoggedEvent = { type: "run_finished", status: CUT_RUN_STATUS, steps: step, runId, at: cut.endedAt };
  return { whole: false, events: [...copied.map(({ event }) => event), closing], runIds: runsOf(copied), cut };
}

const runsOf = (events: SequencedEvent[]) => new Set(events.map(({ event }) => event.runId));

/**
 * The events a rerun's fork copies: every run before `runId`, whole, and nothing of that run (its user message
 * stays out, to be sent again). Undefined when the log has no such run.
 */
export function logBeforeRun(log: SequencedEvent[], runId: string): ForkedLog | undefined {
  const events = log.filter(({ event }) => !isReviewEvent(event));
  const first = events.findIndex(({ event }) => event.runId === runId);
  if (first === -1) return undefined;
  const copied = events.slice(0, first);
  return { whole: false, events: copied.map(({ event }) => event), runIds: runsOf(copied) };
}
