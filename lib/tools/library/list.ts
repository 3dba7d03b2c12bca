import { toolStats } from "@/lib/db/queries/executions";
import {
  findLibraryTool,
  listConversationOwnTools,
  listOwnedTools,
  toolsWithUses,
  type ToolRow,
  type ToolScope,
} from "@/lib/db/queries/tools";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import { toolJson, toolUses } from "@/lib/tools/library/wire";
import { decodeCursor, pageOf } from "@/lib/http/cursor";
import { isBuiltinName } from "@/lib/tools/names";
import { usersOf } from "./versions";

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
  return { tools: await withStats(page), nextCursor };
}

/** Every one of an identity's tools that fits, by name, unpaged: SEAT's lists (GET /seat/tools, /seat/tools/search). */
export async function everyTool(identity: string, { status, q }: Pick<ToolListRequest, "status" | "q">) {
  const deprecated = status === undefined ? undefined : status === "deprecated";
  return withStats(await listOwnedTools(identity, { deprecated, q }));
}

/** One owner's tools as the API shows them, each with its statistics and the names of the tools that use it. */
export async function withStats(rows: ToolRow[]) {
  if (rows.length === 0) return [];
  const [stats, users] = await Promise.all([
    toolStats(rows.map((row) => row.lineageId)),
    toolsWithUses(rows[0].ownerId),
  ]);
  const usedBy = (name: string) => users.filter((user) => toolUses(user).includes(name)).map((user) => user.name);
  return rows.map((row) => ({ ...toolJson(row, stats.get(row.lineageId)), usedBy: usedBy(row.name) }));
}

/**
 * The pages of the tools `tool` calls, found as a run finds them (its conversation's own tools first, then the
 * library), and of the tools whose latest version calls it. Built-in and MCP (`server__tool`) names have no page.
 */
export async function toolRelations(tool: ToolRow) {
  const names = toolUses(tool);
  const [own, users] = await Promise.all([
    tool.conversationId && names.length > 0 ? listConversationOwnTools(tool.conversationId, tool.ownerId) : [],
    usersOf(tool),
  ]);
  const uses = await Promise.all(
    names.map(async (name) => {
      if (isBuiltinName(name) || name.includes("__")) return { name };
      const row = own.find((candidate) => candidate.name === name) ?? (await findLibraryTool(tool.ownerId, name));
      return { name, id: row?.lineageId };
    }),
  );
  return { uses, usedBy: users.map((user) => ({ name: user.name, id: user.lineageId })) };
}
