import { describe, expect, it } from "vitest";
import { compareField, compareRuns, comparisonSummary, type Segment } from "@/lib/trace/compare";
import type { RunView, StepView, ToolCallView } from "@/lib/trace/state";

let nextId = 1;
const call = (name: string, input: unknown, output?: unknown, error?: string): ToolCallView => ({
  eventId: nextId++,
  callId: `c${nextId}`,
  name,
  input,
  output,
  error,
  status: error ? "error" : "ok",
  startedAt: 0,
});
const step = (number: number, calls: ToolCallView[], text = ""): StepView => ({
  eventId: nextId++,
  step: number,
  reasoning: "",
  text,
  calls,
  startedAt: 0,
});
const run = (steps: StepView[]): RunView => ({
  runId: `r${nextId++}`,
  status: "completed",
  steps,
  startedAt: 0,
  annotations: {},
  verdicts: [],
});
const changed = (segments: Segment[]) =>
  segments
    .filter((segment) => segment.changed)
    .map((segment) => segment.text.trim())
    .join("|");

describe("comparing two runs", () => {
  it("aligns step N with step N and finds none differing in identical runs, whatever the key order", () => {
    const left = run([step(1, [call("add", { a: 1, b: 2 }, 3)]), step(2, [], "3")]);
    const right = run([step(1, [call("add", { b: 2, a: 1 }, 3)]), step(2, [], "3")]);
    const comparison = compareRuns(left, right);
    expect(comparison.steps.map((pair) => pair.kind)).toEqual(["same", "same"]);
    expect(comparison.differing).toBe(0);
    expect(comparisonSummary(comparison)).toBe("All 2 steps are the same.");
  });

  it("marks the field that differs, and highlights the differing part of its JSON", () => {
    const left = run([step(1, [call("shout", { text: "hi", loud: true }, "HI!")])]);
    const right = run([step(1, [call("shout", { loud: true, text: "bye" }, "BYE!")])]);
    const [pair] = compareRuns(left, right).steps[0].calls;
    expect(pair.kind).toBe("differs");
    expect(pair.fields!.name.differs).toBe(false);
    expect(pair.fields!.input.differs).toBe(true);
    expect(pair.fields!.output.differs).toBe(true);
    expect(pair.fields!.error.differs).toBe(false);
    expect(changed(pair.fields!.input.left)).toBe('"text": "hi"');
    expect(changed(pair.fields!.input.right)).toBe('"text": "bye"');
    expect(changed(pair.fields!.output.left)).toBe("HI");
  });

  it("aligns calls by name first, pairs what is left by position, and shows the extra ones alone", () => {
    const left = run([step(1, [call("search", { q: "a" }), call("fetch", { url: "x" }), call("think", {})])]);
    const right = run([
      step(1, [call("search", { q: "a" }), call("read", { url: "x" }), call("write", {}), call("think", {})]),
    ]);
    const calls = compareRuns(left, right).steps[0].calls;
    expect(calls.map((pair) => [pair.kind, pair.left?.name, pair.right?.name])).toEqual([
      ["same", "search", "search"],
      ["differs", "fetch", "read"],
      ["only-right", undefined, "write"],
      ["same", "think", "think"],
    ]);
    expect(calls[1].fields!.name.differs).toBe(true);
  });

  it("shows the steps one run has beyond the other on its side only, and counts them as differing", () => {
    const left = run([step(1, [call("a", {})]), step(2, [call("b", {})]), step(3, [], "done")]);
    const right = run([step(1, [call("a", {})])]);
    const comparison = compareRuns(left, right);
    expect(comparison.steps.map((pair) => pair.kind)).toEqual(["same", "only-left", "only-left"]);
    expect(comparison.steps[1].calls).toEqual([{ kind: "only-left", left: left.steps[1].calls[0] }]);
    expect(comparisonSummary(comparison)).toBe("2 of 3 steps differ.");
    expect(compareRuns(right, left).steps[2].kind).toBe("only-right");
  });

  it("tells a step whose text differs from one whose calls do, and a failed call from one that answered", () => {
    const left = run([step(1, [], "The answer is 4."), step(2, [call("f", {}, 1)])]);
    const right = run([step(1, [], "The answer is 5."), step(2, [call("f", {}, undefined, "Timed out.")])]);
    const comparison = compareRuns(left, right);
    expect(changed(comparison.steps[0].text!.left)).toBe("4");
    expect(changed(comparison.steps[0].text!.right)).toBe("5");
    const [pair] = comparison.steps[1].calls;
    expect(pair.fields!.output.differs).toBe(true);
    expect(pair.fields!.error.differs).toBe(true);
    expect(comparisonSummary(comparison)).toBe("2 of 2 steps differ.");
  });

  it("compares values as JSON: numbers within the examples' tolerance and keys in any order are equal", () => {
    expect(compareField({ x: [1, { y: 0.1 + 0.2 }] }, { x: [1, { y: 0.3 }] }).differs).toBe(false);
    expect(compareField(undefined, null).differs).toBe(false);
    expect(compareField([1, 2], [2, 1]).differs).toBe(true);
    expect(compareField(1, "1").differs).toBe(true);
    expect(comparisonSummary(compareRuns(run([]), run([])))).toBe("Neither run has a step.");
    expect(comparisonSummary(compareRuns(run([step(1, [call("a", 1)])]), run([])))).toBe("1 of 1 step differs.");
  });
});
