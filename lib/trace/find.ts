import type { StepView, ToolCallView, TraceState } from "./state";

/** Which cards a reviewer wants to see: all, failures, tool calls, registrations (made or refused), one tool's calls. */
export type TraceFilter = "all" | "errors" | "calls" | "registrations" | { tool: string };

export interface TraceQuery {
  filter: TraceFilter;
  /** Searched for, case-insensitively, in the cards the filter shows; blank searches nothing. */
  text: string;
}

/** A card's place in the panel: hidden by the filter, a step shown only for its calls, a search match, or neither. */
export type CardFind = "hidden" | "calls-only" | "match" | "plain";

export interface TraceFind {
  /** Cards by event id (steps, calls, runs' errors) whose state is not "plain". */
  cards: ReadonlyMap<number, Exclude<CardFind, "plain">>;
  /** Runs the filter hides entirely: nothing of theirs is shown. */
  hiddenRuns: ReadonlySet<string>;
  /** Event ids of the shown cards the text matches, in the trace's order. */
  matches: number[];
  /** Event ids of the shown failures, in the trace's order: failed calls, refused registrations, runs' errors. */
  failures: number[];
}

export const noQuery: TraceQuery = { filter: "all", text: "" };

export const sameFilter = (a: TraceFilter, b: TraceFilter) =>
  typeof a === "string" || typeof b === "string" ? a === b : a.tool === b.tool;

export const isFailure = (call: ToolCallView) => call.status === "error" || call.rejected !== undefined;

function shownBy(filter: TraceFilter, call: ToolCallView): boolean {
  if (filter === "all" || filter === "calls") return true;
  if (filter === "errors") return isFailure(call);
  if (filter === "registrations") return call.registered !== undefined || call.rejected !== undefined;
  return call.name === filter.tool;
}

// The reducer is copy-on-write: a card that did not change keeps its object, so its text is made once, not per key.
const callTexts = new WeakMap<ToolCallView, string>();
const stepTexts = new WeakMap<StepView, string>();

/** As the card shows it: strings as they are, anything else as pretty JSON. */
const shown = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? ""));

/** Everything a call's card can show, lower-cased: its name, input, output, error and registered or refused code. */
export function callText(call: ToolCallView): string {
  let text = callTexts.get(call);
  if (text === undefined) {
    const parts = [call.name, shown(call.input)];
    if (call.output !== undefined) parts.push(shown(call.output));
    if (call.error) parts.push(call.error);
    if (call.registered) parts.push(call.registered.name, call.registered.description, call.registered.code);
    if (call.rejected) {
      const { name, code, violations, failures } = call.rejected;
      parts.push(name, code ?? "", ...violations.map((violation) => violation.message));
      if (failures) parts.push(shown(failures));
    }
    text = parts.join("\n").toLowerCase();
    callTexts.set(call, text);
  }
  return text;
}

/** A step's own text, lower-cased: its reasoning and what it said (its calls are cards of their own). */
export function stepText(step: StepView): string {
  let text = stepTexts.get(step);
  if (text === undefined) {
    text = `${step.reasoning}\n${step.text}`.toLowerCase();
    stepTexts.set(step, text);
  }
  return text;
}

/**
 * What the panel shows for a query: with a filter other than "all", a step shows only its calls that pass (and is
 * hidden when none does), and a run with nothing shown is hidden, unless "errors" shows it for its error. The text
 * is matched against the shown cards only.
 */
export function findInTrace(trace: TraceState, query: TraceQuery): TraceFind {
  const { filter } = query;
  const needle = query.text.trim().toLowerCase();
  const cards = new Map<number, Exclude<CardFind, "plain">>();
  const hiddenRuns = new Set<string>();
  const matches: number[] = [];
  const failures: number[] = [];
  for (const run of trace.runs) {
    let runShown = filter === "all" || (filter === "errors" && run.error !== undefined);
    for (const step of run.steps) {
      if (filter !== "all") {
        if (!step.calls.some((call) => shownBy(filter, call))) {
          for (const call of step.calls) cards.set(call.eventId, "hidden");
          cards.set(step.eventId, "hidden");
          continue;
        }
        runShown = true;
        cards.set(step.eventId, "calls-only");
      } else if (needle && stepText(step).includes(needle)) {
        cards.set(step.eventId, "match");
        matches.push(step.eventId);
      }
      for (const call of step.calls) {
        if (!shownBy(filter, call)) {
          cards.set(call.eventId, "hidden");
          continue;
        }
        if (needle && callText(call).includes(needle)) {
          cards.set(call.eventId, "match");
          matches.push(call.eventId);
        }
        if (isFailure(call)) failures.push(call.eventId);
      }
    }
    if (!runShown) {
      hiddenRuns.add(run.runId);
      if (run.error) cards.set(run.error.eventId, "hidden");
      continue;
    }
    if (run.error) {
      failures.push(run.error.eventId);
      if (needle && run.error.message.toLowerCase().includes(needle)) {
        cards.set(run.error.eventId, "match");
        matches.push(run.error.eventId);
      }
    }
  }
  return { cards, hiddenRuns, matches, failures };
}

/** The names of the tools the trace calls, sorted: the choices of the one-tool filter. */
export function toolNamesOf(trace: TraceState): string[] {
  const names = new Set<string>();
  for (const run of trace.runs) for (const step of run.steps) for (const call of step.calls) names.add(call.name);
  return [...names].sort();
}

/** Whether the trace has a card (a step, a call or a run's error) with this event id. */
export function hasCard(trace: TraceState, eventId: number): boolean {
  return trace.runs.some((run) => run.error?.eventId === eventId || run.steps.some((step) => stepHas(step, eventId)));
}

const stepHas = (step: StepView, eventId: number) =>
  step.eventId === eventId || step.calls.some((call) => call.eventId === eventId);

/**
 * The next (or previous) of `targets` after `from`, an event id anywhere in the trace, wrapping around. Event ids
 * grow along the log and the trace lists cards in the log's order, so ids compare like positions.
 */
export function stepThrough(targets: number[], from: number | null, direction: 1 | -1): number | undefined {
  if (targets.length === 0) return undefined;
  if (from === null) return direction === 1 ? targets[0] : targets.at(-1);
  return direction === 1
    ? (targets.find((id) => id > from) ?? targets[0])
    : (targets.findLast((id) => id < from) ?? targets.at(-1));
}
