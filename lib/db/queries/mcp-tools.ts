import { db } from "@/lib/db/driver/client";
import type { ToolRow } from "./tools";

/**
 * The library tool of that name an MCP client may call for `ownerId`: the latest version, not deprecated. Should
 * two library tools share the name (one moved from a conversation), the newest wins, as in chat.
 */
export function findLibraryToolByName(ownerId: string, name: string): Promise<ToolRow | null> {
  return db.tool.findFirst({
    where: { ownerId, name, scope: "library", status: "active", deprecated: false },
    orderBy: { createdAt: "desc" },
  });
}
