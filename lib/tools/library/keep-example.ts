import { isDeepStrictEqual } from "node:util";
import type { ToolExample } from "@/lib/contract/events";
import { MAX_EXAMPLES, type NewToolExample } from "@/lib/contract/requests";
import { findToolExecution } from "@/lib/db/queries/executions";
import { setFailingExamples, setToolExamples, type ToolRow } from "@/lib/db/queries/tools";
import { ApiError, notFound } from "@/lib/platform/errors";
import { describeFailures } from "./examples";
import { runStoredExamples } from "./stored-tool";
import type { CodeCalls } from "@/lib/tools/types";
import { exampleRefused } from "./wire";

/**
 * Keep an example on the tool's latest version: a past call's input and output ("keep as example"), or one written
 * out. It must pass against that version first, so that every example a tool carries is one it passes. A failing
 * example (`failing: true`, "keep as a failing example" on a call that went wrong) must fail it instead: the next
 * version must pass it (versions.ts). The row as it is now, with the example kept.
 */
export async function keepExample(
  tool: ToolRow,
  body: NewToolExample,
  signal: AbortSignal,
  calls?: CodeCalls,
): Promise<ToolRow> {
  const failing = "failing" in body;
  const example: ToolExample =
    "executionId" in body
      ? await exampleOf(tool.lineageId, body.executionId)
      : { input: body.input, expected_output: body.expected_output };
  const examples = JSON.parse(tool.examples) as ToolExample[];
  const failingExamples = JSON.parse(tool.failingExamples) as ToolExample[];
  const list = failing ? failingExamples : examples;
  if (list.length >= MAX_EXAMPLES) {
    throw new ApiError(
      422,
      "too_many_examples",
      `A tool keeps at most ${MAX_EXAMPLES} ${failing ? "failing " : ""}examples.`,
    );
  }
  if ([...examples, ...failingExamples].some((kept) => isDeepStrictEqual(kept.input, example.input))) {
    throw new ApiError(422, "duplicate_example", "The tool already has an example with this input.");
  }
  const [outcome] = await runStoredExamples(tool, signal, calls, [example]);
  if (failing) {
    if (outcome.passed)
      throw new ApiError(
        422,
        "example_passes",
        `Version ${tool.version} already gives this output: keep it as an ordinary example (without "failing").`,
      );
    const kept = [...failingExamples, example];
    await setFailingExamples(tool.id, kept);
    return { ...tool, failingExamples: JSON.stringify(kept) };
  }
  if (!outcome.passed) {
    throw exampleRefused(
      `Version ${tool.version} does not give this output, so it was not kept:\n${describeFailures([outcome])}`,
      outcome,
    );
  }
  const kept = [...examples, example];
  await setToolExamples(tool.id, kept);
  return { ...tool, examples: JSON.stringify(kept) };
}

/** A past call as an example: only a call that succeeded has an output to expect. */
async function exampleOf(lineageId: string, executionId: string): Promise<ToolExample> {
  const execution = await findToolExecution(lineageId, executionId);
  if (!execution) throw notFound("The execution");
  if (execution.status !== "succeeded" || execution.output === null) {
    throw new ApiError(422, "execution_failed", "Only a call that succeeded can be kept as an example.");
  }
  return {
    input: JSON.parse(execution.input) as Record<string, unknown>,
    expected_output: JSON.parse(execution.output) as unknown,
  };
}
