import { describe, expect, it } from "vitest";
import { callText, findInTrace, hasCard, stepThrough, toolNamesOf, type TraceQuery } from "@/lib/trace/find";
import { applyEvents, emptyTrace, type TraceEvent } from "@/lib/trace/state";

const shout = {
  id: "t1",
  name: "shout",
  description: "Shout a message.",
  parametersSchema: { type: "object" },
  code: "function run({ text }) { return text.toUpperCase(); }",
  version: 1,
};

// Two runs: the first registers a tool, calls it and a failing calculation, and has a rejected registration; the
// second fails with a model error and nothing else.
const log = [
  { type: "run_started", messageId: "m1", model: "gpt" },
  { type: "step_started", step: 1 }, // 2
  { type: "reasoning_delta", step: 1, delta: "I need a Shouting tool." },
  { type: "tool_call", step: 1, callId: "c1", name: "register_tool", input: { name: "shout" } }, // 4
  { type: "tool_registered", step: 1, callId: "c1", tool: shout },
  { type: "tool_result", step: 1, callId: "c1", name: "register_tool", ok: true, output: { registered: "shout" } },
  { type: "tool_call", step: 1, callId: "c2", name: "register_tool", input: { name: "peek" } }, // 7
  {
    type: "tool_rejected",
    step: 1,
    callId: "c2",
    name: "peek",
    code: "process.exit()",
    violations: [{ line: 1, column: 1, message: "process is not available" }],
  },
  { type: "tool_result", step: 1, callId: "c2", name: "register_tool", ok: false, error: "Rejected." },
  { type: "step_finished", step: 1, finishReason: "tool-calls" },
  { type: "step_started", step: 2 }, // 11
  { type: "tool_call", step: 2, callId: "c3", name: "shout", input: { text: "hello" } }, // 12
  { type: "tool_result", step: 2, callId: "c3", name: "shout", ok: true, output: "HELLO" },
  { type: "tool_call", step: 2, callId: "c4", name: "calculate", input: { expression: "1 / x" } }, // 14
  { type: "tool_result", step: 2, callId: "c4", name: "calculate", ok: false, error: "x is not defined" },
  { type: "step_finished", step: 2, finishReason: "tool-calls" },
  { type: "step_started", step: 3 }, // 17
  { type: "text_delta", step: 3, delta: "It says HELLO." },
  { type: "step_finished", step: 3, finishReason: "stop" },
  { type: "run_finished", status: "completed", steps: 3 },
  { type: "run_started", messageId: "m2", model: "gpt", runId: "r2" }, // 21
  { type: "step_started", step: 1, runId: "r2" }, // 22
  { type: "text_delta", step: 1, delta: "Thinking", runId: "r2" },
  { type: "error", message: "The model server failed.", code: "model_error", runId: "r2" }, // 24
  { type: "run_finished", status: "error", steps: 1, runId: "r2" },
].map((event, index) => ({ runId: "r1", ...event, id: index + 1, at: 1_000 + index }) as TraceEvent);

const trace = applyEvents(emptyTrace, log);
const find = (query: Partial<TraceQuery>) => findInTrace(trace, { filter: "all", text: "", ...query });
const hidden = (query: Partial<TraceQuery>) =>
  [...find(query).cards]
    .filter(([, state]) => state === "hidden")
    .map(([id]) => id)
    .sort((a, b) => a - b);

describe("finding things in a trace", () => {
  it("shows everything with no query, and lists the failures in the trace's order", () => {
    const result = find({});
    expect(result.cards.size).toBe(0);
    expect(result.hiddenRuns.size).toBe(0);
    expect(result.matches).toEqual([]);
    // The rejected registration, the failed calculation, the second run's error.
    expect(result.failures).toEqual([7, 14, 24]);
  });

  it("errors only: failed calls and refused registrations, their steps for structure, and runs with an error", () => {
    const result = find({ filter: "errors" });
    expect(hidden({ filter: "errors" })).toEqual([4, 12, 17, 22]);
    expect(result.cards.get(2)).toBe("calls-only");
    expect(result.cards.get(11)).toBe("calls-only");
    // The second run has no call but an error: shown, for its error.
    expect(result.hiddenRuns.size).toBe(0);
    expect(result.failures).toEqual([7, 14, 24]);
  });

  it("tool calls, registrations and one tool by name; a run with nothing shown is hidden", () => {
    expect(hidden({ filter: "calls" })).toEqual([17, 22, 24]); // 24: the hidden run's error
    expect(find({ filter: "calls" }).hiddenRuns).toEqual(new Set(["r2"]));
    expect(hidden({ filter: "registrations" })).toEqual([11, 12, 14, 17, 22, 24]);
    expect(hidden({ filter: { tool: "shout" } })).toEqual([2, 4, 7, 14, 17, 22, 24]);
    // A failure the filter hides is not stepped to.
    expect(find({ filter: { tool: "shout" } }).failures).toEqual([]);
    expect(find({ filter: "registrations" }).failures).toEqual([7]);
  });

  it("searches reasoning, text, names, inputs, outputs, errors, registered and refused code, case-insensitively", () => {
    expect(find({ text: "shouting" }).matches).toEqual([2]); // reasoning
    expect(find({ text: "it says" }).matches).toEqual([17]); // text
    expect(find({ text: "CALCULATE" }).matches).toEqual([14]); // a name
    expect(find({ text: '"expression": "1 / x"' }).matches).toEqual([14]); // input, as the card shows it
    expect(find({ text: "not defined" }).matches).toEqual([14]); // error
    expect(find({ text: "toUpperCase" }).matches).toEqual([4]); // registered code
    expect(find({ text: "process.exit" }).matches).toEqual([7]); // refused code
    expect(find({ text: "is not available" }).matches).toEqual([7]); // a violation
    expect(find({ text: "server failed" }).matches).toEqual([24]); // a run's error
    expect(find({ text: "hello" }).matches).toEqual([12, 17]); // an output and a text
    expect(find({ text: "hello" }).cards.get(12)).toBe("match");
    expect(find({ text: "   " }).matches).toEqual([]);
  });

  it("searches only what the filter shows", () => {
    // Step 3 says HELLO but is hidden by "calls"; the shout call's output still matches.
    expect(find({ filter: "calls", text: "hello" }).matches).toEqual([12]);
    // A step shown for its calls shows no reasoning, so its reasoning does not match.
    expect(find({ filter: "registrations", text: "shouting" }).matches).toEqual([]);
  });

  it("makes a call's text once per call object: the reducer keeps unchanged cards' identity", () => {
    const call = trace.runs[0].steps[1].calls[0];
    expect(callText(call)).toBe(callText(call));
    const next = applyEvents(trace, [
      { type: "text_delta", step: 3, delta: " Done.", runId: "r1", id: 26, at: 2_000 } as TraceEvent,
    ]);
    expect(next.runs[0].steps[1].calls[0]).toBe(call);
    expect(findInTrace(next, { filter: "all", text: "done" }).matches).toEqual([17]);
  });

  it("lists the tools called, knows its cards, and steps through targets with wrap-around", () => {
    expect(toolNamesOf(trace)).toEqual(["calculate", "register_tool", "shout"]);
    expect([2, 4, 24].every((id) => hasCard(trace, id))).toBe(true);
    expect(hasCard(trace, 3)).toBe(false); // a reasoning delta is no card
    expect(hasCard(trace, 99)).toBe(false);
    const failures = [7, 14, 24];
    expect(stepThrough(failures, null, 1)).toBe(7);
    expect(stepThrough(failures, null, -1)).toBe(24);
    expect(stepThrough(failures, 7, 1)).toBe(14);
    expect(stepThrough(failures, 10, 1)).toBe(14); // from a card between two failures
    expect(stepThrough(failures, 24, 1)).toBe(7);
    expect(stepThrough(failures, 7, -1)).toBe(24);
    expect(stepThrough([], 7, 1)).toBeUndefined();
  });
});
