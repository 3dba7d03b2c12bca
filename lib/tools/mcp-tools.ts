import type { JSONSchema7 } from "ai";
import { ToolImage } from "@/lib/contract/events";
import type { NewMcpServer } from "@/lib/contract/requests";
import type { McpServer } from "@/lib/contract/responses";
import { mcpClients, resultForModel, type McpCallResult, type McpServerSpec, type McpToolInfo } from "@/lib/mcp-client";
import {
  addEveryoneServer,
  addMcpServer,
  everyoneServer,
  everyoneServers,
  mcpServerViews,
  ownServer,
  serversForRun,
  type StoredServer,
} from "@/lib/mcp-servers/servers";
import { rankInMemory } from "@/lib/retrieval/in-memory";
import { config } from "@/lib/settings/config";
import { mcpCallNeedsApproval, mcpToolAllowed } from "@/lib/settings/mcp-servers";
import type { AgentProfile } from "@/lib/settings/profiles";
import { inputChecker } from "@/lib/tools/library/stored-tool";
import { offeredSchema } from "@/lib/tools/schema";
import type { AgentTool, ToolResult } from "@/lib/tools/types";

/** Images a result brings for the trace, at most this much base64 in all: the log keeps them. */
const MAX_IMAGE_CHARS = 512 * 1024;
const SHOWN_IMAGE_TYPES = new Set<string>(ToolImage.shape.mimeType.options);

/**
 * An MCP server's tool as one of a run's tools: offered under its qualified name (`server__tool`) with its schema
 * written out, its input checked against that schema, and its call sent to the server through the pool with the
 * call's traceparent; the result becomes the text the model reads, and the images people see in the trace.
 */
export function mcpTool(spec: McpServerSpec, info: McpToolInfo, asksApproval: boolean): AgentTool {
  return {
    name: info.qualifiedName,
    description: `${info.description || info.title || info.name} (a tool of the MCP server "${spec.name}")`,
    parametersSchema: offeredSchema(info.inputSchema) as JSONSchema7,
    mcpServer: spec.name,
    asksApproval,
    parse: inputChecker(info.inputSchema),
    execute: async (input, context) =>
      toolResult(
        await mcpClients.call(spec, info.name, input as object, {
          signal: context.signal,
          timeoutMs: config.sandbox.timeoutMs,
          meta: context.traceparent ? { traceparent: context.traceparent } : undefined,
        }),
      ),
  };
}

/** The model reads the text (an image said in a line); people also see the images, as far as the budget goes. */
function toolResult(result: McpCallResult): ToolResult {
  const { text, isError, media } = resultForModel(result);
  if (isError) return { ok: false, error: text };
  let budget = MAX_IMAGE_CHARS;
  const images = media
    .filter((item) => item.type === "image" && SHOWN_IMAGE_TYPES.has(item.mimeType))
    .filter((item) => (budget -= item.data.length) >= 0)
    .map(({ mimeType, data }) => ({ mimeType, data }) as ToolImage);
  return { ok: true, output: text, ...(images.length > 0 && { images }) };
}

/** One server's part of a run's MCP tools: its listing as the pool keeps it, and the tools the run may use of it. */
export interface McpServerTools {
  spec: McpServerSpec;
  /** The pool's array, the same until the server's list changes: its search index is built once. */
  listed: readonly McpToolInfo[];
  /** The run's tools, by the server's own tool name: those the profile allows. */
  offered: Map<string, AgentTool>;
}

/**
 * The MCP tools a run may use: every allowed tool of every server its profile and person bring, offered to the
 * model only as far as they fit the request or search_tools finds them, so that a server of 200 tools does not
 * flood it; and what went wrong with the servers that could not be listed.
 */
export class McpCatalog {
  private readonly byName = new Map<string, AgentTool>();

  /** `unavailable`: why each server that could not be listed is missing, by its name. */
  constructor(
    private readonly servers: McpServerTools[],
    private readonly unavailable = new Map<string, string>(),
  ) {
    for (const server of servers) for (const tool of server.offered.values()) this.byName.set(tool.name, tool);
  }

  /** What went wrong with the servers that could not be listed, as search_tools says it. */
  get problems(): string[] {
    return [...this.unavailable.values()];
  }

  /**
   * Why `name` (`server__tool`) cannot be called when its server could not be listed for the run, rather than "no
   * tool of that name": the model, and the person reading the trace, learn that it is the server, and why.
   */
  unavailableTool(name: string): string | undefined {
    const problem = this.unavailable.get(name.split("__")[0]);
    return problem && `"${name}" cannot be called now: its MCP server is unavailable. ${problem}`;
  }

  get size(): number {
    return this.byName.size;
  }

  get(name: string): AgentTool | undefined {
    return this.byName.get(name);
  }

  /**
   * What the run offers the model at its start: every tool when there are few, else those that best fit the
   * person's message; search_tools finds the others.
   */
  offeredFor(request: string, k: number): AgentTool[] {
    return this.byName.size <= k ? [...this.byName.values()] : this.search(request, k);
  }

  /** The tools that best fit a query across the servers, best first, at most `k`. */
  search(query: string, k: number): AgentTool[] {
    return this.servers
      .flatMap(({ listed, offered }) =>
        // A profile may leave some out: read deeper, so that k of those it offers remain.
        rankInMemory(listed, query, k + listed.length - offered.size).flatMap(({ tool, score }) => {
          const agentTool = offered.get(tool.name);
          return agentTool ? [{ agentTool, score }] : [];
        }),
      )
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map(({ agentTool }) => agentTool);
  }
}

/**
 * How long a run's start waits for a server's list: one that is slow to connect is left out of this run (it keeps
 * connecting, for the next), rather than holding up the person's answer for its whole connect timeout.
 */
const LIST_WAIT_MS = 3_000;

function listedInTime(spec: McpServerSpec): Promise<McpToolInfo[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`MCP server "${spec.name}" did not list its tools within ${LIST_WAIT_MS / 1000} s.`)),
      LIST_WAIT_MS,
    );
  });
  return Promise.race([mcpClients.tools(spec), late]).finally(() => clearTimeout(timer));
}

/** A run's tool for each listed tool, made once per listing (the pool keeps the same objects until it changes). */
const madeTools = new WeakMap<McpToolInfo, Map<boolean, AgentTool>>();

function toolFor(spec: McpServerSpec, info: McpToolInfo, asksApproval: boolean): AgentTool {
  let made = madeTools.get(info);
  if (!made) madeTools.set(info, (made = new Map()));
  let tool = made.get(asksApproval);
  if (!tool) made.set(asksApproval, (tool = mcpTool(spec, info, asksApproval)));
  return tool;
}

/**
 * The MCP tools a run of `ownerId` under `profile` may use: the servers the profile allows (the file's it names, and
 * the person's own unless it says `personal_mcp_servers: false`), listed at once, each tool allowed by its
 * `mcp_tools` and asking for approval as its `approve_mcp_tools` says. A server that cannot be listed is left out,
 * its problem kept for search_tools to say.
 */
export async function loadMcpCatalog(ownerId: string, profile: AgentProfile): Promise<McpCatalog> {
  const unavailable = new Map<string, string>();
  const listed = await Promise.all(
    (await serversForRun(ownerId, profile)).map(async (spec): Promise<McpServerTools[]> => {
      try {
        const tools = await listedInTime(spec);
        const allowed = tools.filter((info) => mcpToolAllowed(profile, spec.name, info.name));
        const offered = allowed.map((info) =>
          toolFor(spec, info, mcpCallNeedsApproval(profile.approve_mcp_tools, info.annotations)),
        );
        return [{ spec, listed: tools, offered: new Map(allowed.map((info, index) => [info.name, offered[index]])) }];
      } catch (error) {
        unavailable.set(spec.name, error instanceof Error ? error.message : String(error));
        return [];
      }
    }),
  );
  return new McpCatalog(listed.flat(), unavailable);
}

/** How this instance's pool names a connection's state, in the API's words. */
const STATES = { idle: "idle", connecting: "connecting", ready: "connected", failed: "failed" } as const;

/** A server as the API shows it, with this instance's connection to it and the tools it listed last. */
function withStatus(view: McpServer, spec: McpServerSpec | undefined): McpServer {
  if (!spec) return view;
  const { state, error } = mcpClients.status(spec);
  const tools = mcpClients.listed(spec);
  return {
    ...view,
    status: { state: STATES[state], ...(error && { message: error }) },
    ...(tools && { tools: tools.map(({ name, description }) => ({ name, ...(description && { description }) })) }),
  };
}

/**
 * The servers as GET /api/mcp-servers and Settings show them, with this instance's connection to each and the tools
 * it listed last. Nothing is dialled for it, so that a list never waits on a server: adding one and Refresh connect,
 * and so does a run's first use.
 */
export async function mcpServersWithStatus(ownerId: string, profile: AgentProfile | undefined): Promise<McpServer[]> {
  const [views, specs] = await Promise.all([
    mcpServerViews(ownerId, profile),
    profile ? serversForRun(ownerId, { ...profile, personal_mcp_servers: true }) : Promise.resolve([]),
  ]);
  const specOf = (name: string) => specs.find((spec) => spec.name === name);
  return views.map((view) => withStatus(view, specOf(view.name)));
}

/** The servers for everyone as the admin's routes and page show them, each with its connection as above. */
export async function everyoneServersWithStatus(): Promise<McpServer[]> {
  return (await everyoneServers()).map(({ view, spec }) => withStatus(view, spec));
}

/**
 * Connects to a stored server anew and lists its tools (within TOOLSMITH_MCP_CONNECT_TIMEOUT_MS for each): the server
 * as the API shows it, connected with its tools, or failed with why.
 */
async function connected({ view, spec }: StoredServer): Promise<McpServer> {
  await mcpClients.refresh(spec);
  return withStatus(view, spec);
}

/**
 * POST /api/mcp-servers: the server is stored, then connected to. One that cannot be reached is kept, shown with
 * why, so that it can be fixed and refreshed; what the request itself gets wrong is a 400 and stores nothing.
 */
export const addMcpServerAndConnect = async (ownerId: string, server: NewMcpServer) =>
  connected(await addMcpServer(ownerId, server));

/** POST /api/admin/mcp-servers: as `addMcpServerAndConnect`, for everyone. */
export const addEveryoneServerAndConnect = async (server: NewMcpServer) => connected(await addEveryoneServer(server));

/** Refresh: a new connection to one of the person's servers, and its tools listed again. */
export const refreshMcpServer = async (ownerId: string, id: string) => connected(await ownServer(ownerId, id));

/** Refresh of a server for everyone (the admin's). */
export const refreshEveryoneServer = async (id: string) => connected(await everyoneServer(id));
