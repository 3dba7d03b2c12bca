import { diffArrays, diffJson, diffWords, type ChangeObject } from "diff";
import { matchesExpected } from "@/lib/tools/library/examples";
import type { RunView, StepView, ToolCallView } from "./state";

/*
 * Two runs side by side (pure: the compare pages run it on the server): step N with step N, and within a step the
 * calls by name and position, each pair marked same, differs, or present on one side only, with the differing
 * parts of each field to highlight.
 */

export type PairKind = "same" | "differs" | "only-left" | "only-right";

/** A stretch of a field's text on one side; `changed` when the other side has something else there. */
export interface Segment {
  text: string;
  changed: boolean;
}

/** One field of a pair, shown on both sides. */
export interface FieldComparison {
  differs: boolean;
  left: Segment[];
  right: Segment[];
}

export const CALL_FIELDS = ["name", "input", "output", "error"] as const;
export type CallField = (typeof CALL_FIELDS)[number];

export interface CallPair {
  kind: PairKind;
  left?: ToolCallView;
  right?: ToolCallView;
  /** Set on a pair of two calls: each field, compared. */
  fields?: Record<CallField, FieldComparison>;
}

export interface StepPair {
  kind: PairKind;
  /** Its place in each run, from 1: a run taken over may repeat a step number, so places are aligned, not numbers. */
  position: number;
  left?: StepView;
  right?: StepView;
  /** The step's text (what the model said), compared; set on a pair of two steps. */
  text?: FieldComparison;
  calls: CallPair[];
}

export interface RunComparison {
  steps: StepPair[];
  /** Steps that are not the same on both sides, one-sided ones included. */
  differing: number;
}

export function compareRuns(left: RunView, right: RunView): RunComparison {
  const count = Math.max(left.steps.length, right.steps.length);
  const steps = Array.from({ length: count }, (_, index) => compareSteps(left.steps[index], right.steps[index], index));
  return { steps, differing: steps.filter((step) => step.kind !== "same").length };
}

function compareSteps(left: StepView | undefined, right: StepView | undefined, index: number): StepPair {
  const position = index + 1;
  if (!left || !right) {
    const side = left ? "left" : "right";
    const calls = (left ?? right)!.calls.map((call): CallPair => ({ kind: `only-${side}`, [side]: call }));
    return { kind: `only-${side}`, position, left, right, calls };
  }
  const text = compareField(left.text, right.text);
  const calls = alignCalls(left.calls, right.calls);
  const same = !text.differs && calls.every((call) => call.kind === "same");
  return { kind: same ? "same" : "differs", position, left, right, text, calls };
}

/**
 * Calls of the same name anchor the alignment (the longest common sequence of names); between two anchors, the
 * calls left over are paired by position, and what one side has more of stands alone.
 */
function alignCalls(left: ToolCallView[], right: ToolCallView[]): CallPair[] {
  const pairs: CallPair[] = [];
  let l = 0;
  let r = 0;
  let removed: ToolCallView[] = [];
  let added: ToolCallView[] = [];
  const flush = () => {
    for (let index = 0; index < Math.max(removed.length, added.length); index++)
      pairs.push(pairCalls(removed[index], added[index]));
    removed = [];
    added = [];
  };
  const names = (calls: ToolCallView[]) => calls.map((call) => call.name);
  for (const change of diffArrays(names(left), names(right))) {
    const count = change.count ?? change.value.length;
    if (change.removed) removed.push(...left.slice(l, (l += count)));
    else if (change.added) added.push(...right.slice(r, (r += count)));
    else {
      flush();
      for (let index = 0; index < count; index++) pairs.push(pairCalls(left[l++], right[r++]));
    }
  }
  flush();
  return pairs;
}

function pairCalls(left: ToolCallView | undefined, right: ToolCallView | undefined): CallPair {
  if (!left) return { kind: "only-right", right };
  if (!right) return { kind: "only-left", left };
  const fields = {
    name: compareField(left.name, right.name),
    input: compareField(left.input, right.input),
    output: compareField(left.output, right.output),
    error: compareField(left.error, right.error),
  };
  const same = CALL_FIELDS.every((field) => !fields[field].differs);
  return { kind: same ? "same" : "differs", left, right, fields };
}

/**
 * Two values of a field: equal as JSON (object keys in any order), and where they differ, text word by word, other
 * values line by line of their JSON with sorted keys.
 */
export function compareField(left: unknown, right: unknown): FieldComparison {
  const differs = !matchesExpected(left, right);
  const changes: ChangeObject<string>[] =
    typeof left === "string" && typeof right === "string"
      ? diffWords(left, right)
      : diffJson(asJsonDiffable(left), asJsonDiffable(right));
  return {
    differs,
    // Numbers within the examples' tolerance are equal, though their text is not.
    left: changes.filter((c) => !c.added).map(({ value, removed }) => ({ text: value, changed: differs && removed })),
    right: changes.filter((c) => !c.removed).map(({ value, added }) => ({ text: value, changed: differs && added })),
  };
}

/** diffJson sorts the keys of an object it is given; any other value goes as its JSON text. */
const asJsonDiffable = (value: unknown): string | object =>
  typeof value === "object" && value !== null ? value : JSON.stringify(value ?? null);

/** "3 of 5 steps differ." */
export function comparisonSummary({ steps, differing }: RunComparison): string {
  const total = steps.length;
  if (total === 0) return "Neither run has a step.";
  if (differing === 0) return total === 1 ? "The one step is the same." : `All ${total} steps are the same.`;
  return `${differing} of ${total} ${total === 1 ? "step" : "steps"} ${differing === 1 ? "differs" : "differ"}.`;
}
