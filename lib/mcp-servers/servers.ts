/**
 * The MCP servers a person may use (issue 40): their own, connected over HTTP through the API and kept with their
 * headers sealed; those an admin connected for everyone, kept the same way without an owner; and the profiles
 * file's, which only the operator changes. `serversForRun` is what a run's MCP client layer (lib/mcp-client/)
 * connects to; the rest serves /api/mcp-servers, /api/admin/mcp-servers and their pages (lib/tools/mcp-tools.ts adds
 * the connections, which this layer does not reach).
 */
import { randomUUID } from "node:crypto";
import type { NewMcpServer } from "@/lib/contract/requests";
import type { McpServer } from "@/lib/contract/responses";
import {
  createMcpServer,
  deleteMcpServer,
  listMcpServers,
  mcpServersWithHeaders,
  mcpServerWithHeaders,
  type McpServerOwner,
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

/** The admin's servers for everyone: stored as rows without an owner. */
const EVERYONE = null;

/** The file's servers a profile names, in the file's order. */
const fileServersOf = (profile: Pick<McpProfile, "mcp_servers"> | undefined): McpServerEntry[] =>
  fileMcpServers().filter((server) => profile?.mcp_servers.includes(server.name));

/**
 * What a run of `profile` may connect to: the file's servers it names, then, unless it says
 * `personal_mcp_servers: false`, those an admin connected for everyone and the person's own, their headers opened.
 * The file's wins a name over both, and a person's own over everyone's of the same name (the person had it first, or
 * it was theirs to choose). A server whose headers no longer open (another secret) is left out: logged, never the
 * run's end.
 */
export async function serversForRun(ownerId: string, profile: McpProfile): Promise<McpServerSpec[]> {
  const fromFile = fileServersOf(profile).map(fileServerSpec);
  if (!profile.personal_mcp_servers) return fromFile;
  const [everyone, own] = await Promise.all([storedSpecs(EVERYONE), storedSpecs(ownerId)]);
  const taken = new Set(fromFile.map((server) => server.name));
  const personal = own.filter((server) => !taken.has(server.name));
  for (const server of personal) taken.add(server.name);
  return [...fromFile, ...everyone.filter((server) => !taken.has(server.name)), ...personal];
}

/** A stored server as people see it, and as the client connects to it. */
export interface StoredServer {
  view: McpServer;
  spec: McpServerSpec;
}

/** No spec when its headers no longer open. */
type ListedServer = Omit<StoredServer, "spec"> & { spec?: McpServerSpec };

type HeaderedRow = NonNullable<Awaited<ReturnType<typeof mcpServerWithHeaders>>>;

/** An owner's stored servers as specs, their headers opened: untrusted, so reached only where a person's may be. */
async function storedSpecs(ownerId: McpServerOwner): Promise<McpServerSpec[]> {
  return (await mcpServersWithHeaders(ownerId)).flatMap((row) => stored(row, ownerId).spec ?? []);
}

/** A row as the API shows it and as the client connects to it; a row whose headers do not open is logged, never dialled. */
function stored(row: HeaderedRow, ownerId: McpServerOwner): ListedServer {
  const view = storedView(row, ownerId === EVERYONE ? "everyone" : "personal");
  try {
    const headers =
      row.headers === null ? undefined : (JSON.parse(headersSeal.open(row.headers, row.id)) as Record<string, string>);
    return { view, spec: storedSpec(row, headers) };
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    console.warn(`The MCP server "${row.name}" (${row.id}) is not connected to: its headers ${error.message}.`);
    return { view };
  }
}

/** The same content whether made as the server is added or from its row, so that both are one connection. */
const storedSpec = ({ name, url }: { name: string; url: string }, headers?: Record<string, string>): McpServerSpec => ({
  name,
  trusted: false,
  url,
  ...(headers && { headers }),
});

/**
 * The servers a person sees: the file's their profile may use, everyone's (read-only; one their own server's name
 * hides is left out, as runs leave it out), then their own. Names of headers, never values.
 */
export async function mcpServerViews(ownerId: string, profile: McpProfile | undefined): Promise<McpServer[]> {
  const [everyone, own] = await Promise.all([listMcpServers(EVERYONE), listMcpServers(ownerId)]);
  const ownNames = new Set(own.map((row) => row.name));
  return [
    ...fileServersOf(profile).map(fileServerView),
    ...everyone.filter((row) => !ownNames.has(row.name)).map((row) => ({ ...storedView(row, "everyone"), id: null })),
    ...own.map((row) => storedView(row, "personal")),
  ];
}

/** The servers an admin connected for everyone, as the admin's routes show them (with ids, to remove them). */
export async function everyoneServers(): Promise<ListedServer[]> {
  return (await mcpServersWithHeaders(EVERYONE)).map((row) => stored(row, EVERYONE));
}

/** One of `ownerId`'s servers, to connect to it again: 404 for any other id (another's, everyone's, or the file's). */
export const ownServer = (ownerId: string, id: string) => storedServer(id, ownerId);

/** One of the servers for everyone, to connect to it again: 404 for any other id. */
export const everyoneServer = (id: string) => storedServer(id, EVERYONE);

async function storedServer(id: string, ownerId: McpServerOwner): Promise<StoredServer> {
  const row = await mcpServerWithHeaders(id, ownerId);
  if (!row) throw notFound("The MCP server");
  const { view, spec } = stored(row, ownerId);
  if (!spec)
    throw conflict(
      `The headers of the MCP server "${row.name}" no longer open (they were sealed under another secret, or ` +
        `altered); remove it and add it again.`,
    );
  return { view, spec };
}

/** Store a server for `ownerId`: what 201 shows and what to connect to, or a 400/409 that says what to change. */
export async function addMcpServer(ownerId: string, server: NewMcpServer): Promise<StoredServer> {
  if ((await listMcpServers(EVERYONE)).some((row) => row.name === server.name))
    throw conflict(
      `"${server.name}" is the name of an MCP server an admin connected for everyone, which you can use already; ` +
        `choose another.`,
    );
  return addServer(ownerId, server);
}

/** An admin stores a server for everyone: as `addMcpServer`. */
export const addEveryoneServer = (server: NewMcpServer): Promise<StoredServer> => addServer(EVERYONE, server);

/** What refuses an addition past an owner's limit, or of a name it has, in its owner's words. */
const REFUSALS = {
  personal: {
    most: MCP_LIMITS.serversPerPerson,
    full: `You have ${MCP_LIMITS.serversPerPerson} MCP servers, the most one person may connect; remove one first.`,
    taken: (name: string) => `You already have an MCP server named "${name}"; remove it first, or choose another name.`,
  },
  everyone: {
    most: MCP_LIMITS.serversForEveryone,
    full:
      `There are ${MCP_LIMITS.serversForEveryone} MCP servers for everyone, the most there may be; ` +
      `remove one first.`,
    taken: (name: string) =>
      `There is already an MCP server for everyone named "${name}"; remove it first, or choose another name.`,
  },
};

async function addServer(ownerId: McpServerOwner, server: NewMcpServer): Promise<StoredServer> {
  if (fileMcpServers().some((entry) => entry.name === server.name))
    throw conflict(
      `"${server.name}" is the name of a server this instance's profiles file configures; choose another.`,
    );
  const source = ownerId === EVERYONE ? "everyone" : "personal";
  const refusals = REFUSALS[source];
  const headers = {
    ...server.headers,
    ...(server.bearerToken !== undefined && { Authorization: `Bearer ${server.bearerToken}` }),
  };
  // The id is made first: the sealed headers are bound to it, so they open in no other row.
  const id = randomUUID();
  const row = await createMcpServer(
    {
      id,
      ownerId,
      name: server.name,
      url: server.url,
      headers: Object.keys(headers).length ? headersSeal.seal(JSON.stringify(headers), id) : null,
      ...describeHeaders(headers),
    },
    refusals.most,
  );
  if (row === "limit_reached") throw new ApiError(409, "limit_reached", refusals.full);
  if (row === "name_taken") throw conflict(refusals.taken(server.name));
  return { view: storedView(row, source), spec: storedSpec(server, Object.keys(headers).length ? headers : undefined) };
}

/** Remove one of `ownerId`'s servers: 404 for any other id (another's, everyone's, or the file's). */
export async function removeMcpServer(ownerId: string, id: string): Promise<void> {
  if (!(await deleteMcpServer(id, ownerId))) throw notFound("The MCP server");
}

/** An admin removes a server for everyone: no run is offered it from the next one on. 404 for any other id. */
export async function removeEveryoneServer(id: string): Promise<void> {
  if (!(await deleteMcpServer(id, EVERYONE))) throw notFound("The MCP server");
}

function storedView(row: McpServerRow, source: "personal" | "everyone"): McpServer {
  return {
    id: row.id,
    name: row.name,
    source,
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
