import { toolStats } from "@/lib/db/queries/executions";
import { listOwnedTools } from "@/lib/db/queries/tools";
import { requireIdentity } from "@/lib/http/access";
import { ToolSearchQuery } from "@/lib/contract/requests";
import { route } from "@/lib/http/errors";
import { readQuery } from "@/lib/http/query";
import { toolJson } from "@/lib/tools/api-view";

export const dynamic = "force-dynamic";

/** SEAT's search: case-insensitive text in a tool's name or description, over the requester's tools. */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  const { q, limit } = readQuery(request, ToolSearchQuery);
  const rows = await listOwnedTools(identity, { q, limit });
  const stats = await toolStats(rows.map((row) => row.lineageId));
  return Response.json({ tools: rows.map((row) => toolJson(row, stats.get(row.lineageId))) });
});
