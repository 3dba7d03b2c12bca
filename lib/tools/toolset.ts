import { jsonSchema, tool, type ToolSet } from "ai";
import { findLibraryTool, listConversationOwnTools, recentlyUsedLibraryTools } from "@/lib/db/queries/tools";
import { searchTools } from "@/lib/retrieval/tool-search";
import { config } from "@/lib/settings/config";
import type { AgentProfile } from "@/lib/settings/profiles";
import { builtinTools } from "./builtin";
import { callTool, type CallContext, type CallOutcome, type ToolCall } from "./call";
import { isBuiltinName } from "./names";
import { storedTool } from "@/lib/tools/library/stored-tool";
import { loadMcpCatalog, type McpCatalog } from "./mcp-tools";
import type { AgentTool, ToolRegistry } from "./types";

/** What a call from a run brings: whose it is, where it comes from, and a way to ask a person first. */
export type RunCall = Pick<ToolCall, "input" | "problem" | "signal" | "requestApproval" | "onNested"> & {
  caller: Omit<ToolCall["caller"], "source">;
};

/**
 * The tools one run can call: the built-ins its profile allows, the latest version of every tool its conversation
 * registered, and the library tools that fit the person's message, or that search_tools found, or that the model
 * calls by name (the owner's library is theirs to use). Calls go through the one tool-call path (call.ts).
 */
export class Toolset implements ToolRegistry {
  private readonly tools = new Map<string, AgentTool>();

  private mcpLoading?: Promise<McpCatalog>;

  /** `loadMcp`: without `mcp`, the catalog is listed when a call first names a `server__tool`. */
  constructor(
    tools: readonly AgentTool[],
    private readonly profile?: AgentProfile,
    readonly mcp?: McpCatalog,
    private readonly loadMcp?: () => Promise<McpCatalog>,
  ) {
    for (const agentTool of tools) this.add(agentTool);
  }

  add(agentTool: AgentTool): void {
    this.tools.set(agentTool.name, agentTool);
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tool list for the model's next request. */
  forModel(): ToolSet {
    return Object.fromEntries(
      [...this.tools.values()].map((agentTool) => [
        agentTool.name,
        tool({ description: agentTool.description, inputSchema: jsonSchema(agentTool.parametersSchema) }),
      ]),
    );
  }

  /** Call a tool for the model, under the run's profile. */
  async call(name: string, { caller, ...call }: RunCall): Promise<CallOutcome> {
    return callTool({
      ...call,
      name,
      tool: await this.resolve(caller.ownerId, name, { offer: true }),
      caller: { ...caller, source: "chat" },
      profile: this.profile,
      registry: this,
      unknownTool: (missing) => this.unknownToolHint(missing),
    });
  }

  /**
   * A tool by name: one the run has, else a library or MCP tool it was not offered (the model remembers it from
   * earlier in the conversation, or a tool's code calls it). `offer`: the model is offered it from then on.
   */
  async resolve(ownerId: string, name: string, { offer = false } = {}): Promise<AgentTool | undefined> {
    const known = this.tools.get(name);
    if (known || isBuiltinName(name)) return known;
    const mcpTool = (await this.mcpCatalog(name))?.get(name);
    const row = mcpTool ? undefined : await findLibraryTool(ownerId, name);
    const found = mcpTool ?? (row ? storedTool(row) : undefined);
    if (found && offer) this.add(found);
    return found;
  }

  private async mcpCatalog(name: string): Promise<McpCatalog | undefined> {
    if (this.mcp || !this.loadMcp || !name.includes("__")) return this.mcp;
    return (this.mcpLoading ??= this.loadMcp());
  }

  unknownToolHint(name: string): string {
    return (
      `There is no tool named "${name}". Available tools: ${this.names().join(", ")}. ` +
      "Look for one in the library with search_tools; if none fits, create one with " +
      "register_tool(name, description, parameters_schema, code), then call it."
    );
  }
}

/**
 * Rebuilt from the database at the start of every run, so a restart or another server sees the same tools: the
 * built-in and native tools the profile allows (the model sees no others) and search_tools, the conversation's own
 * tools, and `TOOLSMITH_RETRIEVED_TOOLS` library tools: those that best fit `request`, the person's message, then,
 * in the slots left, the ones they used most recently (a message may share no word with the tool it needs: "convert
 * 300 K" and a `kelvin` tool). Their code runs in the sandbox under any profile, so the library and its search are
 * offered under every one. The MCP servers' tools the profile allows are offered the same way: all of them when they
 * are few, else those that fit the message (mcp-tools.ts).
 */
export async function loadToolset(
  conversationId: string,
  ownerId: string,
  profile: AgentProfile,
  request: string,
): Promise<Toolset> {
  const [own, found, mcp] = await Promise.all([
    listConversationOwnTools(conversationId, ownerId),
    searchTools({ ownerId, query: request, k: config.retrievedTools, scope: "library" }),
    loadMcpCatalog(ownerId, profile),
  ]);
  const allowed = allowedBuiltins(profile);
  // The conversation's own tool wins a clash of names; a stored tool never shadows a built-in one, allowed or not.
  const ownNames = new Set(own.map((row) => row.name));
  const matches = found.map((hit) => hit.tool).filter((row) => !ownNames.has(row.name));
  const offeredNames = [...ownNames, ...matches.map((row) => row.name)];
  const recent = await recentlyUsedLibraryTools(ownerId, offeredNames, config.retrievedTools - matches.length);
  const stored = [...own, ...matches, ...recent];
  const library = stored.filter((row) => !isBuiltinName(row.name)).map(storedTool);
  return new Toolset([...allowed, ...library, ...mcp.offeredFor(request, config.retrievedTools)], profile, mcp);
}

const allowedBuiltins = (profile: AgentProfile) =>
  builtinTools.filter(
    (agentTool) => agentTool.name === "search_tools" || profile.tools.some((name) => name === agentTool.name),
  );

/**
 * The terms of a call from the REST API (/api and /seat) and of the checks it runs: the caller's default profile,
 * and no one to ask for approval. A tool's code may call the built-ins that profile allows, the person's library,
 * and their MCP servers' tools, listed only when a call names one. Without a profile it may call none.
 */
export function apiCallContext(ownerId: string, profile: AgentProfile | undefined): CallContext {
  const registry =
    profile && new Toolset(allowedBuiltins(profile), profile, undefined, () => loadMcpCatalog(ownerId, profile));
  return { caller: { ownerId, source: "api" }, profile, registry };
}
