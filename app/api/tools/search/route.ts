import { ToolMatches } from "@/lib/contract/responses";
import { toolStats } from "@/lib/db/queries/executions";
import { requireIdentity } from "@/lib/http/access";
import { ToolSearchQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { searchTools } from "@/lib/retrieval/tool-search";
import { toolJson } from "@/lib/tools/library/wire";

export const dynamic = "force-dynamic";

/**
 * The requester's tools ranked as a run's library tools are (lib/retrieval): by words and, with an embedding model,
 * by meaning; then those containing `q` as a piece of text, as SEAT's substring search found them.
 */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  const { q, limit } = readQuery(request, ToolSearchQuery);
  const hits = await searchTools({ ownerId: identity, query: q, k: limit, scope: "owned" });
  const stats = await toolStats(hits.map((hit) => hit.tool.lineageId));
  return answer(ToolMatches, {
    tools: hits.map(({ tool, score }) => ({ ...toolJson(tool, stats.get(tool.lineageId)), score })),
  });
});
