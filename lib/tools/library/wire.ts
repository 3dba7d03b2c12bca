import type { ExampleOutcome, RegisteredToolView, ToolExample } from "@/lib/contract/events";
import type { Execution, SeatStatistics, Tool, ToolRefused, ToolRun } from "@/lib/contract/responses";
import type { listToolExecutions, ToolStats } from "@/lib/db/queries/executions";
import type { ToolRow } from "@/lib/db/queries/tools";
import { ApiError } from "@/lib/platform/errors";
import type { ToolLanguage, ToolSource } from "@/lib/sandbox/languages";
import type { ToolResult } from "@/lib/tools/types";
import type { Refusal } from "./versions";

/*
 * A tool's rows as the API and the trace show them (lib/contract/responses.ts, events.ts). `id` is the tool's
 * everywhere (every version shares it); `versionId` names one version. The database keeps enumerations as text,
 * written only from the values the contract lists; these functions are where the text becomes the contract's type.
 */

/** A version's code and its language, as the sandbox takes them. */
export const toolSource = (row: ToolRow): ToolSource => ({ language: row.language as ToolLanguage, code: row.code });

/** The tools a version's code calls with tools.call. */
export const toolUses = (row: ToolRow): string[] => JSON.parse(row.uses) as string[];

/** The secrets a version's code reads by name. */
export const toolSecrets = (row: ToolRow): string[] => JSON.parse(row.secrets) as string[];

/** A tool version as the trace shows it (`tool_registered`) and the conversation's tool list. */
export function toolView(row: ToolRow): RegisteredToolView {
  return {
    id: row.lineageId,
    versionId: row.id,
    name: row.name,
    description: row.description,
    parametersSchema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
    ...toolSource(row),
    version: row.version,
    examples: JSON.parse(row.examples) as ToolExample[],
    uses: toolUses(row),
    secrets: toolSecrets(row),
  };
}

/** A tool as the /api/tools routes answer with it: `id` is the tool's (every version shares it). */
export function toolJson(row: ToolRow, stats?: ToolStats): Tool {
  const parametersSchema = JSON.parse(row.parametersSchema) as Record<string, unknown>;
  const examples = JSON.parse(row.examples) as ToolExample[];
  return {
    id: row.lineageId,
    name: row.name,
    description: row.description,
    parameters_schema: parametersSchema,
    input_schema: parametersSchema,
    ...toolSource(row),
    examples,
    tested: examples.length > 0,
    failing_examples: JSON.parse(row.failingExamples) as ToolExample[],
    version: row.version,
    versionId: row.id,
    scope: row.scope as Tool["scope"],
    status: row.deprecated ? "deprecated" : "active",
    conversationId: row.conversationId,
    createdAt: row.createdAt.toISOString(),
    uses: toolUses(row),
    secrets: toolSecrets(row),
    ...(stats ? { stats: { ...stats, lastUsedAt: stats.lastUsedAt?.toISOString() ?? null } } : {}),
    ...(stats ? { statistics: seatStatistics(stats) } : {}),
  };
}

/** The statistics in SEAT's names: failures count every call that did not succeed, durations are in seconds. */
export function seatStatistics(stats: ToolStats): SeatStatistics {
  return {
    total_executions: stats.executions,
    successful_executions: stats.successes,
    failed_executions: stats.executions - stats.successes,
    average_execution_time: stats.meanDurationMs === null ? null : stats.meanDurationMs / 1000,
    last_executed_at: stats.lastUsedAt?.toISOString() ?? null,
  };
}

type ExecutionRow = Awaited<ReturnType<typeof listToolExecutions>>[number];

/** One call of a tool as the API and the tool's page show it: which version ran, from where, and how it went. */
export function executionJson({
  tool,
  input,
  output,
  createdAt,
  source,
  status,
  ...execution
}: ExecutionRow): Execution {
  return {
    ...execution,
    source: source as Execution["source"],
    status: status as Execution["status"],
    version: tool?.version ?? null,
    input: JSON.parse(input) as unknown,
    output: output === null ? null : (JSON.parse(output) as unknown),
    createdAt: createdAt.toISOString(),
  };
}

/** A call from the API (POST /api/tools/{id}/execute): the result, and SEAT's names for it beside ours. */
export const toolRunJson = (result: ToolResult, durationMs: number): ToolRun => ({
  ok: result.ok,
  output: result.ok ? result.output : null,
  error: result.ok ? null : result.error,
  truncated: result.ok && Boolean(result.truncated),
  logs: (result.ok && result.logs) || [],
  ...(result.ok && result.images && { images: result.images }),
  durationMs: Math.round(durationMs),
  success: result.ok,
  execution_time: Number((durationMs / 1000).toFixed(4)),
});

/** 422: a name only a built-in tool has. */
export const reservedName = (name: string) =>
  new ApiError(422, "reserved_name", `"${name}" is a built-in tool; choose another name.`);

/** 409: a tool that other tools' code calls cannot be deleted from under them. */
export const toolInUse = (name: string, usedBy: string[]) =>
  new ApiError(
    409,
    "tool_in_use",
    `${usedBy.join(", ")} ${usedBy.length === 1 ? "calls" : "call"} ${name}: register versions of ${usedBy.length === 1 ? "it" : "them"} without it in uses, or delete ${usedBy.length === 1 ? "it" : "them"}, first.`,
  );

/** 422 (ToolRefused): a tool version the policy, the sandbox or its examples refused. */
export function toolRefused(refusal: Refusal): ApiError {
  const details: Omit<ToolRefused, "error"> = {
    violations:
      refusal.problem === "policy"
        ? refusal.violations.map(({ message, line, column }) => ({ message, line, column }))
        : undefined,
    failures: refusal.problem === "examples" ? refusal.outcomes : undefined,
  };
  return new ApiError(422, `tool_${refusal.problem}`, refusal.message, { details });
}

/** 422 (ToolRefused): an example the tool's latest version does not pass, so it is not kept. */
export const exampleRefused = (message: string, outcome: ExampleOutcome) =>
  new ApiError(422, "example_failed", message, {
    details: { failures: [outcome] } satisfies Omit<ToolRefused, "error">,
  });
