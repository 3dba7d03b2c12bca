/**
 * The MCP servers a person may use (issue 40): their own, connected over HTTP through the API and kept with their
 * headers sealed, and the profiles file's, which only the operator changes. `serversForRun` is what a run's MCP
 * client layer (lib/mcp-client/) connects to; the rest serves GET/POST/DELETE /api/mcp-servers and the settings page.
 */
import { randomUUID } from "node:crypto";
import type { NewMcpServer } from "@/lib/contract/requests";
import type { McpServer } from "@/lib/contract/responses";
import {
  countMcpServers,
  createMcpServer,
  deleteMcpServer,
  listMcpServers,
  mcpServersWithHeaders,
  type McpServerRow,
} from "@/lib/db/queries/mcp-servers";
import { ApiError, conflict, notFound } from "@/lib/platform/errors";
import {
  describeHeaders,
  fileServerSpec,
  MCP_LIMITS,
  type McpProfile,
  type McpServerEntry,
  type McpServerSpec,
} from "@/lib/settings/mcp-servers";
import { fileMcpServers } from "@/lib/settings/profiles";
import { sealer, UnsealError } from "@/lib/settings/secret";

/** Its own key: the headers of a server are sealed under nothing else's. */
const headersSeal = sealer("toolsmith/mcp-server-headers");

/** The file's servers a profile names, in the file's order. */
const fileServersOf = (profile: Pick<McpProfile, "mcp_servers"> | undefined): McpServerEntry[] =>
  fileMcpServers().filter((server) => profile?.mcp_servers.includes(server.name));

/**
 * What a run of `profile` may connect to: the file's servers it names, then the person's own unless it says
 * `personal_mcp_servers: false`, their headers opened. A person's server named as one of the file's is left out
 * (the file's wins the name), as is one whose headers no longer open (another secret): logged, never the run's end.
 */
export async function serversForRun(ownerId: string, profile: McpProfile): Promise<McpServerSpec[]> {
  const fromFile = fileServersOf(profile).map(fileServerSpec);
  if (!profile.personal_mcp_servers) return fromFile;
  const taken = new Set(fromFile.map((server) => server.name));
  const personal: McpServerSpec[] = [];
  for (const row of await mcpServersWithHeaders(ownerId)) {
    if (taken.has(row.name)) continue;
    try {
      const headers =
        row.headers === null
          ? undefined
          : (JSON.parse(headersSeal.open(row.headers, row.id)) as Record<string, string>);
      personal.push({ name: row.name, trusted: false, url: row.url, ...(headers && { headers }) });
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      console.warn(`The MCP server "${row.name}" (${row.id}) is left out of a run: its headers ${error.message}.`);
    }
  }
  return [...fromFile, ...personal];
}

/** The person's servers and the file's their profile may use (the file's first): names of headers, never values. */
export async function mcpServerViews(ownerId: string, profile: McpProfile | undefined): Promise<McpServer[]> {
  const fromFile = fileServersOf(profile).map(fileServerView);
  return [...fromFile, ...(await listMcpServers(ownerId)).map(personalView)];
}

/** Connect a server for `ownerId`: 201's body, or a 400/409 that says what to change. */
export async function addMcpServer(ownerId: string, server: NewMcpServer): Promise<McpServer> {
  if (fileMcpServers().some((entry) => entry.name === server.name))
    throw conflict(
      `"${server.name}" is the name of a server this instance's profiles file configures; choose another.`,
    );
  if ((await countMcpServers(ownerId)) >= MCP_LIMITS.serversPerPerson)
    throw new ApiError(
      409,
      "limit_reached",
      `You have ${MCP_LIMITS.serversPerPerson} MCP servers, the most one person may connect; remove one first.`,
    );
  const headers = {
    ...server.headers,
    ...(server.bearerToken !== undefined && { Authorization: `Bearer ${server.bearerToken}` }),
  };
  // The id is made first: the sealed headers are bound to it, so they open in no other row.
  const id = randomUUID();
  const described = describeHeaders(headers);
  const row = await createMcpServer({
    id,
    ownerId,
    name: server.name,
    url: server.url,
    headers: Object.keys(headers).length ? headersSeal.seal(JSON.stringify(headers), id) : null,
    ...described,
  });
  if (!row)
    throw conflict(`You already have an MCP server named "${server.name}"; remove it first, or choose another name.`);
  return personalView(row);
}

/** Remove one of `ownerId`'s servers: 404 for any other id (another's, or the file's). */
export async function removeMcpServer(ownerId: string, id: string): Promise<void> {
  if (!(await deleteMcpServer(id, ownerId))) throw notFound("The MCP server");
}

function personalView(row: McpServerRow): McpServer {
  return {
    id: row.id,
    name: row.name,
    source: "personal",
    transport: "http",
    url: row.url,
    headerNames: row.headerNames,
    bearer: row.bearer,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A file's server as a person sees it: a stdio server's command, arguments and environment stay the operator's. */
function fileServerView(entry: McpServerEntry): McpServer {
  return {
    id: null,
    name: entry.name,
    source: "file",
    transport: entry.url === undefined ? "stdio" : "http",
    url: entry.url ?? null,
    ...describeHeaders(entry.headers),
    createdAt: null,
  };
}
