import { z } from "zod";
import { searchTools as searchLibrary } from "@/lib/retrieval/tool-search";
import { defineTool } from "@/lib/tools/define-tool";
import { isBuiltinName } from "@/lib/tools/names";
import { storedTool } from "./stored-tool";
import { signatureText } from "@/lib/tools/signature";

export const DEFAULT_FOUND_TOOLS = 5;
export const MAX_FOUND_TOOLS = 20;

/**
 * The library, searched by the model: a run is offered only the library tools that fit the person's message, so
 * this is how it finds the others before it writes a tool that already exists. What it finds it can call next.
 */
export const searchTools = defineTool({
  name: "search_tools",
  description:
    "Search your library of tools written in earlier conversations, and the tools of the MCP servers connected " +
    "to you. Call it before writing a new tool: describe what the tool should do. Returns the best library " +
    "matches with their signature, description and a relevance score (0–1), and the best MCP tools " +
    "(`mcp_tools`, named server__tool); each tool found can be called from your next step like any other tool.",
  inputSchema: z.strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .describe('What the tool should do, in a few words, e.g. "convert fahrenheit to celsius".'),
    k: z
      .number()
      .int()
      .min(1)
      .max(MAX_FOUND_TOOLS)
      .optional()
      .describe(`How many tools to return (default ${DEFAULT_FOUND_TOOLS}).`),
  }),
  // It adds the tools it finds to the ones the run's next steps can call.
  changesToolset: true,
  async execute({ query, k = DEFAULT_FOUND_TOOLS }, { ownerId, tools }) {
    const hits = await searchLibrary({ ownerId, query, k, scope: "library" });
    for (const { tool } of hits) if (!isBuiltinName(tool.name) && !tools?.get(tool.name)) tools?.add(storedTool(tool));
    const found = hits.map(({ tool, score }) => ({
      name: tool.name,
      signature: signatureText(tool.name, JSON.parse(tool.parametersSchema) as Record<string, unknown>),
      description: tool.description,
      language: tool.language,
      score,
    }));
    const fromServers = tools?.mcp?.search(query, k) ?? [];
    for (const tool of fromServers) if (!tools?.get(tool.name)) tools?.add(tool);
    const served = fromServers.map((tool) => ({
      name: tool.name,
      signature: signatureText(tool.name, tool.parametersSchema as Record<string, unknown>),
      description: tool.description,
      server: tool.mcpServer,
    }));
    const problems = tools?.mcp?.problems ?? [];
    return {
      ok: true,
      output: {
        tools: found,
        ...(served.length > 0 && { mcp_tools: served }),
        ...(found.length + served.length === 0 && {
          note: "No library tool matches. If none of your tools fits, write one with register_tool.",
        }),
        ...(problems.length > 0 && { unavailable_servers: problems }),
      },
    };
  },
});
