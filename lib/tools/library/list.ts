import { toolStats } from "@/lib/db/queries/executions";
import { listOwnedTools, type ToolScope } from "@/lib/db/queries/tools";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import { toolJson } from "@/lib/tools/library/wire";
import { decodeCursor, pageOf } from "@/lib/http/cursor";

export interface ToolListRequest {
  status?: "active" | "deprecated";
  scope?: ToolScope;
  language?: ToolLanguage;
  q?: string;
  limit: number;
  cursor?: string;
}

/** A page of an identity's tools with their statistics, as the API and the library page send it. */
export async function toolPage(identity: string, { status, scope, language, q, limit, cursor }: ToolListRequest) {
  const rows = await listOwnedTools(identity, {
    deprecated: status === undefined ? undefined : status === "deprecated",
    scope,
    language,
    q,
    limit: limit + 1,
    after: decodeCursor(cursor, ["name", "id"]),
  });
  const { page, nextCursor } = pageOf(rows, limit, (last) => ({ name: last.name, id: last.lineageId }));
  const stats = await toolStats(page.map((row) => row.lineageId));
  return { tools: page.map((row) => toolJson(row, stats.get(row.lineageId))), nextCursor };
}
