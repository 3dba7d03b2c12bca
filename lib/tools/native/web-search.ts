import { z } from "zod";
import { config, webSearchConfig } from "@/lib/settings/config";
import { defineTool } from "@/lib/tools/define-tool";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A web search backend; the first configured one answers. */
interface SearchProvider {
  name: string;
  search(query: string, count: number, signal: AbortSignal): Promise<SearchResult[]>;
}

async function getJson(url: string, init: RequestInit, signal: AbortSignal): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    signal: AbortSignal.any([signal, AbortSignal.timeout(config.fetch.timeoutMs)]),
  });
  if (!response.ok) throw new Error(`the search service answered ${response.status}`);
  return response.json();
}

/** SearXNG's JSON API (its settings must enable the json format). The operator's own service, so not the tool fetch guard. */
const searxng = (base: string): SearchProvider => ({
  name: "SearXNG",
  async search(query, count, signal) {
    const body = (await getJson(
      `${base.replace(/\/$/, "")}/search?${new URLSearchParams({ q: query, format: "json" })}`,
      {},
      signal,
    )) as { results?: { title?: string; url?: string; content?: string }[] };
    return (body.results ?? [])
      .slice(0, count)
      .map((result) => ({ title: result.title ?? "", url: result.url ?? "", snippet: result.content ?? "" }));
  },
});

/** Brave Search's API, with TOOLSMITH_BRAVE_API_KEY. */
const brave = (key: string): SearchProvider => ({
  name: "Brave Search",
  async search(query, count, signal) {
    const url = `https://api.search.brave.com/res/v1/web/search?${new URLSearchParams({ q: query, count: String(count) })}`;
    const body = (await getJson(
      url,
      { headers: { accept: "application/json", "x-subscription-token": key } },
      signal,
    )) as { web?: { results?: { title?: string; url?: string; description?: string }[] } };
    return (body.web?.results ?? [])
      .slice(0, count)
      .map((result) => ({ title: result.title ?? "", url: result.url ?? "", snippet: result.description ?? "" }));
  },
});

function provider(): SearchProvider | undefined {
  const { searxngUrl, braveApiKey } = webSearchConfig();
  if (searxngUrl) return searxng(searxngUrl);
  return braveApiKey ? brave(braveApiKey) : undefined;
}

export const webSearch = defineTool({
  name: "web_search",
  description: "Search the web: titles, URLs and snippets of the top results.",
  inputSchema: z.strictObject({
    query: z.string().min(1).max(500),
    num_results: z.number().int().min(1).max(20).default(5),
  }),
  async execute({ query, num_results }, { signal }) {
    const backend = provider();
    if (!backend) {
      return {
        ok: false,
        error:
          "No search service is configured: set TOOLSMITH_SEARXNG_URL (a SearXNG instance with the JSON format on) or TOOLSMITH_BRAVE_API_KEY, and restart.",
      };
    }
    try {
      return { ok: true, output: { results: await backend.search(query, num_results, signal) } };
    } catch (error) {
      return { ok: false, error: `${backend.name} failed: ${(error as Error).message}` };
    }
  },
});
