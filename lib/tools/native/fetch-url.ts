import { z } from "zod";
import { config } from "@/lib/settings/config";
import { domainGuard, toolRules, guardedFetch, HostRefusedError } from "@/lib/sandbox/fetch-guard";
import { defineTool, refused } from "@/lib/tools/define-tool";
import type { ToolResult } from "@/lib/tools/types";

/** A request of `tool` that did not get its reply: refused when a rule refused its host (on any hop), else failed. */
export function requestFailure(tool: string, method: string, url: string, error: unknown): ToolResult {
  const why = `${tool} ${method} ${url.slice(0, 200)}`;
  if (error instanceof HostRefusedError) return refused(`${why} was refused: ${error.message}`);
  return { ok: false, error: `${why} failed: ${(error as Error).message}` };
}

export const fetchUrl = defineTool({
  name: "fetch_url",
  description:
    "Make an HTTP request to a public http(s) URL and get its status, headers and body (text). Private, loopback " +
    `and cloud-metadata addresses are refused, on every redirect too. Limits: ${config.fetch.timeoutMs} ms, ` +
    `${Math.round(config.fetch.maxResponseBytes / 1024)} KB of body (longer bodies are cut and marked).`,
  inputSchema: z.strictObject({
    url: z.string().max(4096).describe("http or https URL."),
    method: z.enum(["GET", "POST", "PUT", "DELETE"]).default("GET"),
    headers: z.record(z.string(), z.string()).optional().describe("Request headers."),
    body: z.string().optional().describe("Request body, for POST and PUT."),
  }),
  async execute({ url, method, headers, body }, { signal, settings }) {
    try {
      const reply = await guardedFetch(
        { url, method, headers, body },
        { limits: config.fetch, signal, ...domainGuard(settings, toolRules("fetch_url")) },
      );
      return {
        ok: true,
        output: {
          status_code: reply.status,
          url: reply.url,
          headers: reply.headers,
          body: reply.body,
          truncated: reply.truncated,
        },
      };
    } catch (error) {
      return requestFailure("fetch_url", method, url, error);
    }
  },
});
