import type { JSONSchema7 } from "ai";
import { Validator } from "@cfworker/json-schema";
import type { ToolRow } from "@/lib/db/queries/tools";
import { toolSource, toolView } from "./wire";
import { runInSandbox, type ToolSource } from "@/lib/sandbox";
import type { ExampleOutcome, ToolExample } from "@/lib/contract/events";
import { matchesExpected } from "./examples";
import { sandboxFailure } from "@/lib/tools/output";
import { offeredSchema } from "@/lib/tools/schema";
import type { AgentTool, InputCheck, ToolContext, ToolResult } from "@/lib/tools/types";
import { callTool } from "@/lib/tools/call";

/** A tool the agent wrote: its inputs are checked against its JSON Schema, and its code runs in the sandbox. */
export function storedTool(row: ToolRow): AgentTool {
  const view = toolView(row);
  return {
    name: view.name,
    description: view.description,
    parametersSchema: offeredSchema(view.parametersSchema) as JSONSchema7,
    versionId: view.versionId,
    parse: inputChecker(view.parametersSchema),
    execute: (input, { signal, callTool, nested }) => runToolCode(toolSource(row), input, signal, { callTool, nested }),
  };
}

/** A call of a stored tool from the API (/api and /seat): the one call path, so the audit and statistics count it. */
export const callFromApi = (tool: ToolRow, input: unknown, ownerId: string, signal: AbortSignal) =>
  callTool({ name: tool.name, tool: storedTool(tool), input, caller: { ownerId, source: "api" }, signal });

/** A check of inputs against a tool's parameters schema, naming each problem and where it is. */
export function inputChecker(schema: Record<string, unknown>): (input: unknown) => InputCheck<unknown> {
  const validator = new Validator(schema, "2020-12", false);
  return (input) => {
    const validation = validator.validate(input);
    if (validation.valid) return { ok: true, input };
    // "properties" only repeats the errors of the properties themselves.
    const problems = validation.errors
      .filter((error) => error.keyword !== "properties")
      .map((error) => `${error.instanceLocation === "#" ? "input" : error.instanceLocation.slice(2)}: ${error.error}`);
    return { ok: false, problems };
  };
}

/** Call a stored tool's entry point (`run(input)`) in its language's sandbox; its tools.call goes to `callTool`. */
export async function runToolCode(
  source: ToolSource,
  input: unknown,
  signal?: AbortSignal,
  { callTool, nested }: Pick<ToolContext, "callTool" | "nested"> = {},
): Promise<ToolResult> {
  const serve =
    callTool &&
    (async ({ name, input: toolInput }: { name: string; input: unknown }, hostSignal: AbortSignal) => {
      const called = await callTool(name, toolInput, hostSignal);
      return called.ok ? { ok: true as const, output: called.output } : { ok: false as const, error: called.error };
    });
  const result = await runInSandbox("tool", source, input, signal, { callTool: serve, nested });
  if (!result.ok) return sandboxFailure(result);
  return { ok: true, output: result.output, truncated: result.outputTruncated, text: result.text };
}

/** A stored version as `runExamples` takes it. */
export const testedVersion = (row: ToolRow) => ({
  ...toolSource(row),
  parametersSchema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
});

/**
 * Run each example against a tool's code in the sandbox, side by side (the pool's threads take them): its input
 * must match the parameters schema, and its output the expected one. `callTool` serves the code's tools.call.
 */
export async function runExamples(
  tool: ToolSource & { parametersSchema: Record<string, unknown> },
  examples: ToolExample[],
  signal?: AbortSignal,
  callTool?: ToolContext["callTool"],
): Promise<ExampleOutcome[]> {
  const check = inputChecker(tool.parametersSchema);
  return Promise.all(
    examples.map(async ({ input, expected_output }): Promise<ExampleOutcome> => {
      const parsed = check(input);
      if (!parsed.ok) {
        const error = `The input does not match parameters_schema: ${parsed.problems.join("; ")}`;
        return { input, expected_output, passed: false, error };
      }
      const result = await runToolCode(tool, input, signal, { callTool });
      if (!result.ok) return { input, expected_output, passed: false, error: result.error };
      const actual = result.output ?? null;
      return { input, expected_output, passed: matchesExpected(actual, expected_output), actual_output: actual };
    }),
  );
}
