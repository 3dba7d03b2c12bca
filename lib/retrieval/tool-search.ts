import { fullTextToolIds, toolIdsContaining, toolsByIds, type SearchScope, type ToolRow } from "@/lib/db/queries/tools";
import { toolIdsByMeaning } from "./embeddings";
import { queryTerms } from "@/lib/db/queries/tool-words";

export interface ToolSearch {
  ownerId: string;
  /** The person's message, a search_tools query, or the REST API's `q`. */
  query: string;
  k: number;
  scope: SearchScope;
}

export interface ToolHit {
  tool: ToolRow;
  /** 1 when first in every ranking, less further down; 0 for a match of the query as a piece of text only. */
  score: number;
}

/** Reciprocal rank fusion's constant: the usual 60, so that no single ranking's top dominates. */
const FUSION_K = 60;
/** How deep each ranking is read before fusing. */
const RANKING_DEPTH = 50;
/** A query this short may be a piece of a name (SEAT's substring search): longer ones are only searched by words. */
const MAX_SUBSTRING_CHARS = 64;

/**
 * The library tools that best fit a query: full-text ranking (words, stemmed, over name, parameter names and
 * description) and, with an embedding model, ranking by meaning, fused by rank (reciprocal rank fusion). Tools
 * that only contain the query as a piece of text (`emperat`) come after them, as SEAT's substring search found them.
 */
export async function searchTools({ ownerId, query, k, scope }: ToolSearch): Promise<ToolHit[]> {
  if (k <= 0) return [];
  const text = query.trim();
  const [byWords, byMeaning, bySubstring] = await Promise.all([
    fullTextToolIds(ownerId, queryTerms(text), scope, RANKING_DEPTH),
    toolIdsByMeaning(ownerId, text, scope, RANKING_DEPTH),
    text && text.length <= MAX_SUBSTRING_CHARS ? toolIdsContaining(ownerId, text, scope, k) : [],
  ]);
  const rankings = [byWords, byMeaning].filter((ranking) => ranking.length > 0);
  const ranked = fuseByRank(rankings);
  for (const id of bySubstring) if (!ranked.has(id)) ranked.set(id, 0);
  const best = [...ranked].slice(0, k);
  const rows = new Map((await toolsByIds(best.map(([id]) => id))).map((row) => [row.id, row]));
  return best.flatMap(([id, score]) => {
    const tool = rows.get(id);
    return tool ? [{ tool, score }] : [];
  });
}

/** Reciprocal rank fusion of rankings (ids best first): ids by fused score, best first, scores scaled to 0–1. */
function fuseByRank(rankings: string[][]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings)
    ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (FUSION_K + index + 1)));
  const best = rankings.length / (FUSION_K + 1);
  return new Map(
    [...scores]
      .sort((a, b) => b[1] - a[1])
      .map(([id, score]) => [id, Math.round((score / best) * 1000) / 1000] as const),
  );
}
