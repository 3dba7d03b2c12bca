import type { ToolExample } from "@/lib/contract/events";
import type { AuditEntry, Execution, SeatStatistics, Tool } from "@/lib/contract/responses";
import type { AuditRow } from "@/lib/db/queries/audit";
import type { listToolExecutions, ToolStats } from "@/lib/db/queries/executions";
import type { ToolRow } from "@/lib/db/queries/tools";

/*
 * Rows as the API answers with them (lib/contract/responses.ts). The database keeps enumerations as text, written
 * only from the values the contract lists; these functions are where the text becomes the contract's type.
 */

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
    code: row.code,
    examples,
    tested: examples.length > 0,
    failing_examples: JSON.parse(row.failingExamples) as ToolExample[],
    version: row.version,
    versionId: row.id,
    scope: row.scope as Tool["scope"],
    status: row.deprecated ? "deprecated" : "active",
    conversationId: row.conversationId,
    createdAt: row.createdAt.toISOString(),
    ...(stats ? { stats: { ...stats, lastUsedAt: stats.lastUsedAt?.toISOString() ?? null } } : {}),
    ...(stats ? { statistics: seatStatistics(stats) } : {}),
  };
}

/** The statistics in SEAT's names: failures count every call that did not succeed, durations are in seconds. */
function seatStatistics(stats: ToolStats): SeatStatistics {
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

/** An audit entry as the API, the export and the audit page show it. */
export const auditJson = ({ createdAt, decision, outcome, ...entry }: AuditRow): AuditEntry => ({
  time: createdAt.toISOString(),
  ...entry,
  decision: decision as AuditEntry["decision"],
  outcome: outcome as AuditEntry["outcome"],
});
