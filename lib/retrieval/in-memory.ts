import MiniSearch from "minisearch";
import { identifierWords, parameterWords, queryTerms } from "@/lib/db/queries/tool-words";

/** A tool held in memory rather than stored: an MCP server's, as it listed it. */
export interface InMemoryTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** One index per tool list: a server's list is kept until it says it changed, so its index is built once. */
const indexes = new WeakMap<readonly InMemoryTool[], MiniSearch<{ id: number }>>();

function indexOf(tools: readonly InMemoryTool[]): MiniSearch<{ id: number }> {
  let index = indexes.get(tools);
  if (!index) {
    index = new MiniSearch({
      fields: ["name", "description", "parameters"],
      // The query is already split into words (queryTerms); the documents are split as stored names are.
      processTerm: (term) => term.toLowerCase(),
      searchOptions: { boost: { name: 3, description: 1, parameters: 0.5 }, prefix: true, fuzzy: 0.15 },
    });
    index.addAll(
      tools.map((tool, id) => ({
        id,
        name: identifierWords(tool.name),
        description: tool.description,
        parameters: parameterWords(tool.inputSchema),
      })),
    );
    indexes.set(tools, index);
  }
  return index;
}

/**
 * The tools of `tools` that best fit a query, best first, at most `k`, with their BM25 scores (comparable across
 * lists searched with the same query): over the words of their names, descriptions and parameters, as the library's
 * full-text search reads a stored tool's, with prefixes and small misspellings matched ("convert" finds
 * "converter"). A query with no descriptive word finds nothing. Keep `tools` the same array while it is the same
 * list: its index is built once.
 */
export function rankInMemory<Tool extends InMemoryTool>(
  tools: readonly Tool[],
  query: string,
  k: number,
): { tool: Tool; score: number }[] {
  const { words } = queryTerms(query);
  if (k <= 0 || words.length === 0 || tools.length === 0) return [];
  return indexOf(tools)
    .search(words.join(" "), { combineWith: "OR" })
    .slice(0, k)
    .map((hit) => ({ tool: tools[hit.id as number], score: hit.score }));
}
