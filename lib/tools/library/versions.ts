import { Validator } from "@cfworker/json-schema";
import { isDeepStrictEqual } from "node:util";
import {
  deleteTool,
  keptFailingExamples,
  saveToolVersion,
  toolsWithUses,
  versionSource,
  type NewToolVersion,
  type ToolRow,
} from "@/lib/db/queries/tools";
import { checkSource, formatViolation, runInSandbox, type Violation } from "@/lib/sandbox";
import type { DependentCheck, ExampleOutcome } from "@/lib/contract/events";
import { describeFailures } from "./examples";
import { sandboxFailure } from "@/lib/tools/output";
import { inlineRefs, SchemaReferenceError } from "@/lib/tools/schema";
import { boundaryFor, runExamples, runStoredExamples, storedTool } from "./stored-tool";
import { toolInUse, toolUses } from "./wire";
import { isBuiltinName } from "@/lib/tools/names";
import type { CodeCalls } from "@/lib/tools/types";

const MAX_SCHEMA_CHARS = 16 * 1024;

export type Refusal =
  | { ok: false; problem: "schema" | "compile" | "uses" | "secrets"; message: string; cancelled?: boolean }
  | { ok: false; problem: "policy"; message: string; violations: Violation[] }
  | { ok: false; problem: "examples"; message: string; outcomes: ExampleOutcome[]; cancelled?: boolean };

/** A stored version, and how the tools that use it did against it. */
export type Registration = { ok: true; row: ToolRow; dependents: DependentCheck[] } | Refusal;

/**
 * The one way a tool version comes to exist, from register_tool, generation and the API alike: it passes
 * `checkToolVersion`, then it is stored, with its examples. A refusal stores nothing. With `calls` (tools.call for
 * its code), the new version joins their tools and the examples of the owner's tools that use it run against it.
 */
export async function registerToolVersion(
  tool: NewToolVersion,
  signal?: AbortSignal,
  calls?: CodeCalls,
): Promise<Registration> {
  // The calls a person kept as failing examples of the version this one follows: it must pass them too, and they
  // become its examples.
  const kept = (await keptFailingExamples(tool.ownerId, tool.conversationId, tool.name)).filter(
    (example) => !tool.examples.some((own) => isDeepStrictEqual(own.input, example.input)),
  );
  const checked = { ...tool, examples: [...tool.examples, ...kept] };
  const refusal = await checkToolVersion(checked, signal, calls);
  if (refusal?.problem === "examples" && kept.length > 0)
    refusal.message += `\n${kept.length} of these examples were kept by a person from calls of the previous version that went wrong: every new version must pass them.`;
  if (refusal) return refusal;
  const row = await saveToolVersion(checked);
  if (!calls) return { ok: true, row, dependents: [] };
  calls.registry.add(storedTool(row));
  return { ok: true, row, dependents: await checkDependents(row, calls, signal) };
}

/**
 * The owner's tools whose latest version uses `row`'s tool, each with its examples run again now that the tool has
 * a new version (side by side, as a version's own examples run). A tool without examples has nothing to fail. A
 * conversation's own tool is used only by the tools of its conversation; a library tool, by any.
 */
async function checkDependents(row: ToolRow, calls: CodeCalls, signal?: AbortSignal): Promise<DependentCheck[]> {
  const users = (await usersOf(row)).filter(
    (user) => row.scope === "library" || user.conversationId === row.conversationId,
  );
  return Promise.all(
    users.map(async (user) => {
      const outcomes = await runStoredExamples(user, signal, calls);
      const failures = outcomes.filter((outcome) => !outcome.passed);
      return { id: user.lineageId, name: user.name, version: user.version, passed: failures.length === 0, failures };
    }),
  );
}

/** The owner's other tools whose latest version lists `tool`'s name in its uses. */
export async function usersOf(tool: ToolRow): Promise<ToolRow[]> {
  return (await toolsWithUses(tool.ownerId)).filter(
    (user) => user.lineageId !== tool.lineageId && toolUses(user).includes(tool.name),
  );
}

/** Delete every version of a tool, unless other tools' code calls it (409): they would fail from then on. */
export async function removeTool(tool: ToolRow): Promise<void> {
  const users = await usersOf(tool);
  if (users.length > 0)
    throw toolInUse(
      tool.name,
      users.map((user) => user.name),
    );
  await deleteTool(tool.lineageId);
}

/** What a registration says of the tools that use the new version, when some now fail: empty when none do. */
export function dependentsReport(dependents: DependentCheck[]): string {
  const failing = dependents.filter((dependent) => !dependent.passed);
  if (failing.length === 0) return "";
  const names = failing.map((dependent) => `${dependent.name} (${dependent.failures.length} failing)`).join(", ");
  return (
    `Tools that use it now fail their examples: ${names}. Register a fixed version of each, or fix this tool:\n` +
    failing.map((dependent) => `${dependent.name}:\n${describeFailures(dependent.failures)}`).join("\n")
  );
}

/**
 * Why a tool version cannot be accepted, if it cannot: its parameters schema must be usable, the secrets it names
 * set for its owner, its code must pass its language's policy and load in its sandbox (defining its entry point),
 * and each of its examples must give the expected output.
 */
export async function checkToolVersion(
  tool: Omit<NewToolVersion, "ownerId" | "conversationId" | "runId"> & { ownerId?: string },
  signal?: AbortSignal,
  calls?: CodeCalls,
): Promise<Refusal | undefined> {
  const schemaProblem = checkParametersSchema(tool.parametersSchema);
  if (schemaProblem) return { ok: false, problem: "schema", message: `Invalid parameters_schema: ${schemaProblem}` };
  const uses = tool.uses ?? [];
  const usesProblem = await checkUses(tool.name, uses, calls);
  if (usesProblem) return { ok: false, problem: "uses", message: `Invalid uses: ${usesProblem}` };
  const secrets = await boundaryFor({ secrets: tool.secrets ?? [] }, tool.ownerId);
  if (typeof secrets === "string") return { ok: false, problem: "secrets", message: `Invalid secrets: ${secrets}` };

  const source = versionSource(tool);
  const check = await checkSource(source, { uses });
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
    runInSandbox("compile", source, undefined, signal, { network: calls?.network, secrets }),
    runExamples(
      { ...source, uses, secrets: tool.secrets ?? [], parametersSchema: tool.parametersSchema },
      tool.examples,
      signal,
      { callTool: calls?.callsAs(tool.name), network: calls?.network, ownerId: tool.ownerId },
    ),
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

/**
 * What is wrong with the tools a version says it calls: itself, or a tool its code could not call. Without `calls`
 * (a check with no one to call for) every name is refused, since none of its calls could be served.
 */
async function checkUses(name: string, uses: readonly string[], calls?: CodeCalls): Promise<string | undefined> {
  if (uses.includes(name)) return `${name} may not call itself.`;
  if (uses.length > 0 && !calls) return "tools.call is not available here, so a tool registered here may use none.";
  const found = await Promise.all(uses.map(async (used) => ({ used, tool: await calls?.resolve(used) })));
  const missing = found.filter(({ tool }) => !tool).map(({ used }) => used);
  const builtins = missing.filter(isBuiltinName);
  if (builtins.length > 0) return `${builtins.join(", ")}: a built-in this profile does not allow.`;
  if (missing.length > 0)
    return `${missing.join(", ")}: no tool you can call has this name. Register it first, or check the name (an MCP server's tool is server__tool).`;
  const changers = found.filter(({ tool }) => tool?.changesToolset).map(({ used }) => used);
  if (changers.length > 0) return `${changers.join(", ")} changes the run's tools and cannot be called from code.`;
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
