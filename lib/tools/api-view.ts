import type { ToolStats } from "@/lib/db/executions";
import type { ToolRow } from "@/lib/db/tools";

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
    createdAt: row.createdAt,
    ...(stats ? { stats } : {}),
  };
}
