import type { Reply } from "./model-server";

/** A run of about 2,000 events: 8 steps of text deltas and bursts of tool calls. */
export function bigTraceScript(): Reply[] {
  const steps: Reply[] = [];
  for (let step = 0; step < 7; step++) {
    steps.push({
      text: `Step ${step}: ${"checking the numbers one by one ".repeat(5)}`,
      chunkSize: 1,
      toolCalls: Array.from({ length: 30 }, (_, i) => ({
        name: "calculate",
        args: { expression: `${step} * ${i} + 1` },
      })),
    });
  }
  steps.push({ text: `Done. ${"All the results are in the trace. ".repeat(14)}`, chunkSize: 1 });
  return steps;
}

/** A run with three failures: a calculation that cannot be evaluated, an unknown tool, a refused registration. */
export const FAILURES_SCRIPT: Reply[] = [
  {
    text: "Let me compute a few things.",
    toolCalls: [
      { name: "calculate", args: { expression: "2 + 2" } },
      { name: "calculate", args: { expression: "2 +" } },
      { name: "no_such_tool", args: { value: 1 } },
    ],
  },
  {
    toolCalls: [
      {
        name: "register_tool",
        args: {
          name: "peek",
          description: "Read the environment.",
          parameters_schema: { type: "object" },
          code: "function run() {\n  return process.env;\n}",
        },
      },
      { name: "calculate", args: { expression: "10 / 4" } },
    ],
  },
  { text: "All done: 2 + 2 is 4." },
];
