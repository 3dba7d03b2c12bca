import { db, lockOwner, transaction } from "@/lib/db/driver/client";
import { isUniqueViolation } from "@/lib/db/driver/sql";

/** What a server shows: never its sealed headers. */
const listed = {
  id: true,
  name: true,
  url: true,
  headerNames: true,
  bearer: true,
  createdAt: true,
  updatedAt: true,
} as const;

export type McpServerRow = Awaited<ReturnType<typeof listMcpServers>>[number];

/** Whose servers: a person's identity, or null for those an admin connected for everyone. */
export type McpServerOwner = string | null;

export interface NewMcpServerRow {
  id: string;
  ownerId: McpServerOwner;
  name: string;
  url: string;
  /** Sealed (lib/settings/secret.ts); null: none. */
  headers: string | null;
  headerNames: string[];
  bearer: boolean;
}

/** An owner's servers (everyone's for null), by name. */
export async function listMcpServers(ownerId: McpServerOwner) {
  const rows = await db.mcpServer.findMany({ where: { ownerId }, orderBy: { name: "asc" }, select: listed });
  return rows.map(withNames);
}

/** Why a server was not stored: its owner has one of that name, or `most` already. */
export type NotCreated = "name_taken" | "limit_reached";

/**
 * Store a server unless its owner has one of that name or `most` servers already. The count and the insert are one
 * transaction serialised per owner (`lockOwner`), so that concurrent additions cannot all pass the count.
 */
export async function createMcpServer(
  { headerNames, ...row }: NewMcpServerRow,
  most: number,
): Promise<McpServerRow | NotCreated> {
  try {
    return await transaction(async (tx) => {
      await lockOwner(tx, MCP_SERVERS_LOCK, row.ownerId);
      if ((await tx.mcpServer.count({ where: { ownerId: row.ownerId } })) >= most) return "limit_reached" as const;
      return withNames(
        await tx.mcpServer.create({ data: { ...row, headerNames: JSON.stringify(headerNames) }, select: listed }),
      );
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "name_taken";
    throw error;
  }
}

/** The advisory locks' first key for an owner's MCP servers (the second is its identity's hash): this file's own. */
const MCP_SERVERS_LOCK = 4040;

/** Remove one of an owner's servers (everyone's for null); false when it has none with that id. */
export async function deleteMcpServer(id: string, ownerId: McpServerOwner): Promise<boolean> {
  const { count } = await db.mcpServer.deleteMany({ where: { id, ownerId } });
  return count > 0;
}

/** An owner's servers with their sealed headers, for a run's connections (lib/mcp-servers/servers.ts). */
export async function mcpServersWithHeaders(ownerId: McpServerOwner) {
  const rows = await db.mcpServer.findMany({
    where: { ownerId },
    orderBy: { name: "asc" },
    select: { ...listed, headers: true },
  });
  return rows.map(withNames);
}

/** One of an owner's servers with its sealed headers, to connect to it again; undefined for any other id. */
export async function mcpServerWithHeaders(id: string, ownerId: McpServerOwner) {
  const row = await db.mcpServer.findFirst({ where: { id, ownerId }, select: { ...listed, headers: true } });
  return row ? withNames(row) : undefined;
}

function withNames<Row extends { headerNames: string }>(row: Row) {
  return { ...row, headerNames: JSON.parse(row.headerNames) as string[] };
}
