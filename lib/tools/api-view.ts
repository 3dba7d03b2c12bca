import type { listToolExecutions, ToolStats } from "@/lib/db/queries/executions";
import type { ToolRow } from "@/lib/db/queries/tools";

/** A tool as the /api/tools routes answer with it: `id` is the tool's (every version shares it). */
export function toolJson(row: ToolRow, stats?: ToolStats) {
  return {
    id: row.lineageId,
    name: row.name,
    description: row.description,
    parameters_schema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
    code: row.code,
    version: row.version,
    versionId: row.id,
    scope: row.scope,
    status: row.deprecated ? "deprecated" : "active",
    conversationId: row.conversationId,
    createdAt: row.createdAt.toISOString(),
    ...(stats ? { stats: { ...stats, lastUsedAt: stats.lastUsedAt?.toISOString() ?? null } } : {}),
  };
}

export type LibraryTool = ReturnType<typeof toolJson>;

type ExecutionRow = Awaited<ReturnType<typeof listToolExecutions>>[number];

/** One call of a tool as the API and the tool's page show it: which version ran, from where, and how it went. */
export function executionJson({ tool, input, output, createdAt, ...execution }: ExecutionRow) {
  return {
    ...execution,
    version: tool?.version ?? null,
    input: JSON.parse(input) as unknown,
    output: output === null ? null : (JSON.parse(output) as unknown),
    createdAt: createdAt.toISOString(),
  };
}

export type ExecutionJson = ReturnType<typeof executionJson>;
