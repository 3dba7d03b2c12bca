import { Validator } from "@cfworker/json-schema";
import { isDeepStrictEqual } from "node:util";
import {
  keptFailingExamples,
  saveToolVersion,
  versionSource,
  type NewToolVersion,
  type ToolRow,
} from "@/lib/db/queries/tools";
import { checkSource, formatViolation, runInSandbox, type Violation } from "@/lib/sandbox";
import type { ExampleOutcome } from "@/lib/contract/events";
import { describeFailures } from "./examples";
import { sandboxFailure } from "@/lib/tools/output";
import { inlineRefs, SchemaReferenceError } from "@/lib/tools/schema";
import { runExamples } from "./stored-tool";
import type { ToolContext } from "@/lib/tools/types";

const MAX_SCHEMA_CHARS = 16 * 1024;

export type Refusal =
  | { ok: false; problem: "schema" | "compile"; message: string; cancelled?: boolean }
  | { ok: false; problem: "policy"; message: string; violations: Violation[] }
  | { ok: false; problem: "examples"; message: string; outcomes: ExampleOutcome[]; cancelled?: boolean };

export type Registration = { ok: true; row: ToolRow } | Refusal;

/**
 * The one way a tool version comes to exist, from register_tool, generation and the API alike: it passes
 * `checkToolVersion`, then it is stored, with its examples. A refusal stores nothing.
 */
export async function registerToolVersion(
  tool: NewToolVersion,
  signal?: AbortSignal,
  callTool?: ToolContext["callTool"],
): Promise<Registration> {
  // The calls a person kept as failing examples of the version this one follows: it must pass them too, and they
  // become its examples.
  const kept = (await keptFailingExamples(tool.ownerId, tool.conversationId, tool.name)).filter(
    (example) => !tool.examples.some((own) => isDeepStrictEqual(own.input, example.input)),
  );
  const checked = { ...tool, examples: [...tool.examples, ...kept] };
  const refusal = await checkToolVersion(checked, signal, callTool);
  if (refusal?.problem === "examples" && kept.length > 0)
    refusal.message += `\n${kept.length} of these examples were kept by a person from calls of the previous version that went wrong: every new version must pass them.`;
  return refusal ?? { ok: true, row: await saveToolVersion(checked) };
}

/**
 * Why a tool version cannot be accepted, if it cannot: its parameters schema must be usable, its code must pass
 * its language's policy and load in its sandbox (defining its entry point), and each of its examples must give the
 * expected output.
 */
export async function checkToolVersion(
  tool: Omit<NewToolVersion, "ownerId" | "conversationId" | "runId">,
  signal?: AbortSignal,
  callTool?: ToolContext["callTool"],
): Promise<Refusal | undefined> {
  const schemaProblem = checkParametersSchema(tool.parametersSchema);
  if (schemaProblem) return { ok: false, problem: "schema", message: `Invalid parameters_schema: ${schemaProblem}` };

  const source = versionSource(tool);
  const check = await checkSource(source);
  if (!check.ok) {
    return {
      ok: false,
      problem: "policy",
      message: `Tool "${tool.name}" was rejected by the code policy. Fix these and register it again:\n${check.violations.map(formatViolation).join("\n")}`,
      violations: check.violations,
    };
  }
  // Loading the code and running the examples are independent sandbox calls: side by side, the pool takes both.
  const [compiled, outcomes] = await Promise.all([
    runInSandbox("compile", source, undefined, signal),
    runExamples({ ...source, parametersSchema: tool.parametersSchema }, tool.examples, signal, callTool),
  ]);
  if (!compiled.ok) {
    const failure = sandboxFailure(compiled);
    return {
      ok: false,
      problem: "compile",
      message: `Tool "${tool.name}" failed to load: ${failure.error}`,
      cancelled: failure.cancelled,
    };
  }
  const failed = outcomes.filter((outcome) => !outcome.passed).length;
  if (failed > 0) {
    return {
      ok: false,
      problem: "examples",
      message:
        `Tool "${tool.name}" failed ${failed} of its ${outcomes.length} examples, so it was not registered. Fix the ` +
        `code (or an example that is wrong) and register it again:\n${describeFailures(outcomes)}`,
      outcomes,
      cancelled: signal?.aborted,
    };
  }
  return undefined;
}

function checkParametersSchema(schema: Record<string, unknown>): string | undefined {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return `larger than ${MAX_SCHEMA_CHARS} characters.`;
  if (schema.type !== "object") return 'it must be an object schema: {"type": "object", "properties": {...}}.';
  if (schema.properties !== undefined && (typeof schema.properties !== "object" || Array.isArray(schema.properties))) {
    return "`properties` must be an object.";
  }
  try {
    new Validator(schema, "2020-12").validate({});
  } catch (error) {
    return `it cannot be used for validation (${(error as Error).message}).`;
  }
  // The model is shown the schema with its references written out: one that cannot be is refused now, not later.
  try {
    inlineRefs(schema);
  } catch (error) {
    if (error instanceof SchemaReferenceError) return error.message;
    throw error;
  }
  return undefined;
}
