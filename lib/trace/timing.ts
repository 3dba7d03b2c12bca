/**
 * A run's time and cost, from its RunView (state.ts): the waterfall's rows, the split of the run's time into model,
 * tools and the rest, its tokens, and its cost. Pure, so the server, the browser and the tests read the same.
 */
import type { RunView, StepView } from "./state";

/** A model's price in US dollars per million tokens (TOOLSMITH_MODEL_PRICES). */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Prices by model id. */
export type ModelPrices = Record<string, ModelPrice>;

export interface Tokens {
  input: number;
  output: number;
}

export interface WaterfallRow {
  kind: "model" | "tool";
  /** "Step 2" for a model call, the tool's name for a tool call. */
  label: string;
  /** The event its card is named by: the step's step_started, the call's tool_call. */
  eventId: number;
  /** Its step's step_started: the step's card, always built, where a call's card may not be yet. */
  stepEventId: number;
  /** A tool call's place among its step's calls. */
  callIndex?: number;
  step: number;
  /** Milliseconds from the run's start. */
  start: number;
  end: number;
  /** A model call's first byte (the time before it is the wait for the model); absent in older logs. */
  firstByte?: number;
  failed: boolean;
  /** No end was recorded: still running (drawn to now), or cut off when the run ended (drawn to its end). */
  open: boolean;
  /** A model call's tokens, when the model said. */
  tokens?: Tokens;
}

/**
 * Where the run's time went, in ms, `modelMs + toolsMs + otherMs = totalMs`. Model: the union of the model calls.
 * Tools: the union of the tool calls, less what overlaps a model call, so parallel calls count once and nothing
 * counts twice. Other: the rest, the loop's own overhead (storing calls before they act, building the next request).
 */
export interface TimeSplit {
  modelMs: number;
  toolsMs: number;
  otherMs: number;
  totalMs: number;
}

export interface RunTokens extends Tokens {
  /** Steps that ended without the model saying what they used: the counts (and the cost) leave them out. */
  uncounted: number;
}

export interface RunTiming {
  rows: WaterfallRow[];
  split: TimeSplit;
  tokens: RunTokens;
}

/** The latest time the run's view knows of, epoch ms: "now" for a running run, as far as its events tell. */
export function latestTime(run: RunView): number {
  let latest = run.endedAt ?? run.startedAt;
  for (const step of run.steps) {
    latest = Math.max(latest, step.startedAt, step.model?.lastByteAt ?? 0, step.endedAt ?? 0);
    for (const call of step.calls) latest = Math.max(latest, call.startedAt, call.endedAt ?? 0);
  }
  return latest;
}

/**
 * The run's waterfall and split. `now` (epoch ms) ends what is still open in a running run; by default the latest
 * time its events tell. A finished run's open calls end at its end. A model call ends at its last byte; in logs
 * without it, at its step's first tool call, else at the step's end.
 */
export function runTiming(run: RunView, now = latestTime(run)): RunTiming {
  const origin = run.startedAt;
  const runEnd = run.endedAt ?? Math.max(now, origin);
  const totalMs = runEnd - origin;
  const at = (time: number) => Math.min(Math.max(time - origin, 0), totalMs);
  const rows: WaterfallRow[] = [];
  run.steps.forEach((step, index) => {
    const modelEnd = modelCallEnd(step);
    const interrupted = modelEnd === undefined;
    const failedModel = interrupted && run.status === "error" && index === run.steps.length - 1;
    const start = at(step.startedAt);
    rows.push({
      kind: "model",
      label: `Step ${step.step}`,
      eventId: step.eventId,
      stepEventId: step.eventId,
      step: step.step,
      start,
      end: Math.max(start, at(modelEnd ?? runEnd)),
      ...(step.model && { firstByte: Math.max(start, at(step.model.firstByteAt)) }),
      failed: failedModel,
      open: interrupted && !failedModel,
      ...(counted(step) && { tokens: { input: step.usage?.inputTokens ?? 0, output: step.usage?.outputTokens ?? 0 } }),
    });
    step.calls.forEach((call, callIndex) => {
      const callStart = at(call.startedAt);
      rows.push({
        kind: "tool",
        label: call.name,
        eventId: call.eventId,
        stepEventId: step.eventId,
        callIndex,
        step: step.step,
        start: callStart,
        end: Math.max(callStart, at(call.endedAt ?? runEnd)),
        failed: call.status === "error",
        open: call.endedAt === undefined,
      });
    });
  });
  return { rows, split: timeSplit(rows, totalMs), tokens: runTokens(run) };
}

function modelCallEnd(step: StepView): number | undefined {
  if (step.model) return step.model.lastByteAt;
  if (step.calls.length > 0) return Math.min(...step.calls.map((call) => call.startedAt));
  return step.endedAt;
}

function timeSplit(rows: WaterfallRow[], totalMs: number): TimeSplit {
  const model = union(rows.filter((row) => row.kind === "model"));
  const tools = union(rows.filter((row) => row.kind === "tool"));
  const modelMs = length(model);
  const toolsMs = length(tools) - overlap(tools, model);
  return { modelMs, toolsMs, otherMs: totalMs - modelMs - toolsMs, totalMs };
}

type Interval = { start: number; end: number };

/** The union of intervals, as disjoint intervals in order. */
export function union(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter(({ start, end }) => end > start).sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const { start, end } of sorted) {
    const last = merged.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else merged.push({ start, end });
  }
  return merged;
}

const length = (intervals: Interval[]) => intervals.reduce((sum, { start, end }) => sum + end - start, 0);

/** How much two unions (disjoint, in order) overlap. */
function overlap(a: Interval[], b: Interval[]): number {
  let total = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    total += Math.max(0, Math.min(a[i].end, b[j].end) - Math.max(a[i].start, b[j].start));
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return total;
}

/** Whether the model said what the step used. */
const counted = (step: StepView) => step.usage?.inputTokens !== undefined || step.usage?.outputTokens !== undefined;

/** The run's tokens, summed over the steps whose usage the model gave; a step still streaming is not counted yet. */
export function runTokens(run: RunView): RunTokens {
  const tokens: RunTokens = { input: 0, output: 0, uncounted: 0 };
  run.steps.forEach((step, index) => {
    if (counted(step)) {
      tokens.input += step.usage?.inputTokens ?? 0;
      tokens.output += step.usage?.outputTokens ?? 0;
    } else if (!(run.status === "running" && index === run.steps.length - 1)) tokens.uncounted++;
  });
  return tokens;
}

/** The cost in US dollars of `tokens` at `price`; undefined without a price (tokens only, then). */
export function costOf(tokens: Tokens, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}

/** A duration for people: ms under a second, seconds under a minute, then minutes and seconds. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const wholeNumber = new Intl.NumberFormat("en-US");
const cents = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
// A run often costs a fraction of a cent: two significant digits say how much.
const fractionOfACent = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  maximumSignificantDigits: 2,
});

export const formatTokens = (count: number) => wholeNumber.format(count);

export const formatUsd = (dollars: number) => (dollars >= 0.01 ? cents : fractionOfACent).format(dollars);
