import type { JSONSchema7 } from "ai";
import { Validator } from "@cfworker/json-schema";
import type { ToolRow } from "@/lib/db/queries/tools";
import { toolSecrets, toolSource, toolUses, toolView } from "./wire";
import { codeWorkspace } from "@/lib/files/code-files";
import { runInSandbox, type ToolSource } from "@/lib/sandbox";
import type { ExampleOutcome, ToolExample } from "@/lib/contract/events";
import { matchesExpected } from "./examples";
import { sandboxFailure, sandboxSuccess } from "@/lib/tools/output";
import type { DomainRules } from "@/lib/sandbox/fetch-guard";
import { offeredSchema } from "@/lib/tools/schema";
import type { AgentTool, CallTool, CodeCalls, InputCheck, ToolContext, ToolResult } from "@/lib/tools/types";
import { callTool, type CallContext } from "@/lib/tools/call";
import { SecretBoundary } from "@/lib/sandbox/secret-boundary";
import { missingSecrets, secretsForCall } from "@/lib/secrets/store";
import { touchSecrets } from "@/lib/db/queries/secrets";

/** A tool the agent wrote: its inputs are checked against its JSON Schema, and its code runs in the sandbox. */
export function storedTool(row: ToolRow): AgentTool {
  const view = toolView(row);
  return {
    name: view.name,
    description: view.description,
    parametersSchema: offeredSchema(view.parametersSchema) as JSONSchema7,
    versionId: view.versionId,
    parse: inputChecker(view.parametersSchema),
    usesWorkspace: true,
    execute: (input, { signal, callTool, nested, network, workspace, ownerId }) =>
      runToolCode(callableVersion(row), input, signal, { callTool, nested, network, workspace, ownerId }),
  };
}

/** A version's code as it runs: its source, the tools it may call (its `uses`) and the secrets it reads. */
export interface CallableVersion extends ToolSource {
  uses: readonly string[];
  /** None when absent. */
  secrets?: readonly string[];
}

const callableVersion = (row: ToolRow): CallableVersion => ({
  ...toolSource(row),
  uses: toolUses(row),
  secrets: toolSecrets(row),
});

/** What a call of a version's code is given: its tools.call, network and workspace, and whose secrets it uses. */
type CodeServices = Partial<Pick<ToolContext, "callTool" | "nested" | "network" | "workspace" | "ownerId">>;

/**
 * A call of a stored tool from the API (/api and /seat), on the API's terms (toolset.ts `apiCallContext`): the one
 * call path, so the audit and statistics count it, and its tools.call goes the same way.
 */
export const callFromApi = (tool: ToolRow, input: unknown, context: CallContext, signal: AbortSignal) =>
  callTool({ ...context, name: tool.name, tool: storedTool(tool), input, signal });

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

/**
 * Call a stored tool's entry point (`run(input)`) in its language's sandbox. Its tools.call goes to `callTool`, for
 * the tools its `uses` lists only: the check refuses the code's other calls, and this refuses those it could not see.
 * The secrets it names are `ownerId`'s (their own, else everyone's): a missing one fails the call, saying what to do.
 */
export async function runToolCode(
  version: CallableVersion,
  input: unknown,
  signal?: AbortSignal,
  { callTool, nested, network, workspace, ownerId }: CodeServices = {},
): Promise<ToolResult> {
  const secrets = await boundaryFor(version, ownerId);
  if (typeof secrets === "string") return { ok: false, error: secrets };
  const serve =
    callTool &&
    (async ({ name, input: toolInput }: { name: string; input: unknown }, hostSignal: AbortSignal) => {
      const called = version.uses.includes(name)
        ? await callTool(name, toolInput, hostSignal)
        : { ok: false as const, error: notInUses(name, version.uses) };
      return called.ok ? { ok: true as const, output: called.output } : { ok: false as const, error: called.error };
    });
  const result = await runInSandbox("tool", version, input, signal, {
    callTool: serve,
    nested,
    network,
    secrets,
    ...(workspace && { workspace: codeWorkspace(workspace) }),
  });
  if (secrets) await touchSecrets(secrets.usedIds());
  if (!result.ok) return sandboxFailure(result);
  return sandboxSuccess(result);
}

/** The boundary of a call's secrets, none when the version names none, or why the call cannot have them. */
export async function boundaryFor(
  version: Pick<CallableVersion, "secrets">,
  ownerId: string | undefined,
): Promise<SecretBoundary | undefined | string> {
  const names = version.secrets ?? [];
  if (names.length === 0) return undefined;
  const { secrets, missing } = ownerId ? await secretsForCall(ownerId, names) : { secrets: [], missing: [...names] };
  return missing.length > 0 ? missingSecrets(missing) : new SecretBoundary(secrets);
}

const notInUses = (name: string, uses: readonly string[]) =>
  `tools.call("${name}") refused: ${name} is not in this tool's uses (${uses.join(", ") || "none"}). Register a ` +
  "new version that lists it in uses.";

/** A stored version as `runExamples` takes it. */
export const testedVersion = (row: ToolRow) => ({
  ...callableVersion(row),
  parametersSchema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
});

/** Run a stored version's examples (`examples`, its own by default), its tools.call served by `calls`. */
export const runStoredExamples = (
  row: ToolRow,
  signal?: AbortSignal,
  calls?: CodeCalls,
  examples = JSON.parse(row.examples) as ToolExample[],
) =>
  runExamples(testedVersion(row), examples, signal, {
    callTool: calls?.callsAs(row.name),
    network: calls?.network,
    ownerId: row.ownerId,
  });

/**
 * Run each example against a tool's code in the sandbox, side by side (the pool's threads take them): its input
 * must match the parameters schema, and its output the expected one. `callTool` serves the code's tools.call;
 * the secrets are `ownerId`'s.
 */
export async function runExamples(
  tool: CallableVersion & { parametersSchema: Record<string, unknown> },
  examples: ToolExample[],
  signal?: AbortSignal,
  services: { callTool?: CallTool; network?: DomainRules; ownerId?: string } = {},
): Promise<ExampleOutcome[]> {
  const check = inputChecker(tool.parametersSchema);
  return Promise.all(
    examples.map(async ({ input, expected_output }): Promise<ExampleOutcome> => {
      const parsed = check(input);
      if (!parsed.ok) {
        const error = `The input does not match parameters_schema: ${parsed.problems.join("; ")}`;
        return { input, expected_output, passed: false, error };
      }
      const result = await runToolCode(tool, input, signal, services);
      if (!result.ok) return { input, expected_output, passed: false, error: result.error };
      const actual = result.output ?? null;
      return { input, expected_output, passed: matchesExpected(actual, expected_output), actual_output: actual };
    }),
  );
}
