import { db } from "@/lib/db/driver/client";
import { isUniqueViolation } from "@/lib/db/driver/sql";

/** What a person's server shows: never its sealed headers. */
const listed = {
  id: true,
  name: true,
  url: true,
  headerNames: true,
  bearer: true,
  createdAt: true,
  updatedAt: true,
} as const;

export type McpServerRow = NonNullable<Awaited<ReturnType<typeof createMcpServer>>>;

export interface NewMcpServerRow {
  id: string;
  ownerId: string;
  name: string;
  url: string;
  /** Sealed (lib/settings/secret.ts); null: none. */
  headers: string | null;
  headerNames: string[];
  bearer: boolean;
}

/** A person's servers, by name. */
export async function listMcpServers(ownerId: string) {
  const rows = await db.mcpServer.findMany({ where: { ownerId }, orderBy: { name: "asc" }, select: listed });
  return rows.map(withNames);
}

export function countMcpServers(ownerId: string): Promise<number> {
  return db.mcpServer.count({ where: { ownerId } });
}

/** The server stored, or undefined when the owner has one of that name already. */
export async function createMcpServer({ headerNames, ...row }: NewMcpServerRow) {
  try {
    return withNames(
      await db.mcpServer.create({ data: { ...row, headerNames: JSON.stringify(headerNames) }, select: listed }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** Remove one of `ownerId`'s servers; false when it has none with that id. */
export async function deleteMcpServer(id: string, ownerId: string): Promise<boolean> {
  const { count } = await db.mcpServer.deleteMany({ where: { id, ownerId } });
  return count > 0;
}

/** A person's servers with their sealed headers, for a run's connections (lib/mcp-servers/servers.ts). */
export function mcpServersWithHeaders(ownerId: string) {
  return db.mcpServer.findMany({
    where: { ownerId },
    orderBy: { name: "asc" },
    select: { id: true, name: true, url: true, headers: true },
  });
}

const withNames = <Row extends { headerNames: string }>(row: Row) => ({
  ...row,
  headerNames: JSON.parse(row.headerNames) as string[],
});
