import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type McpRequestContext,
  type Tool,
} from "@modelcontextprotocol/server";
import packageJson from "@/package.json";
import { findLibraryTool, listOwnedTools } from "@/lib/db/queries/tools";
import { ApiError } from "@/lib/platform/errors";
import { decodeCursor, pageOf } from "@/lib/http/cursor";
import { callTool, type CallContext } from "@/lib/tools/call";
import { storedTool } from "@/lib/tools/library/stored-tool";
import { toolSource } from "@/lib/tools/library/wire";
import { offeredSchema } from "@/lib/tools/schema";
import { toolAnnotations } from "./annotations";

/** Tools per tools/list page: a library can hold thousands, and clients follow `nextCursor`. */
export const MCP_PAGE_SIZE = 100;

const SERVER_INFO = { name: "toolsmith", title: "Toolsmith tool library", version: packageJson.version };
const INSTRUCTIONS =
  "The tools of your Toolsmith library, each written by its agent in JavaScript or Python and run in Toolsmith's " +
  "sandbox (QuickJS, or CPython in a jail of its own per call; no access to the host; the web at public addresses " +
  "only, for the tools marked open-world).";

/** Who an MCP client acts for, and the terms its tools' own tools.call run on (read only for a tools/call). */
interface McpCaller {
  ownerId: string;
  calls: () => Promise<CallContext>;
}

/**
 * One HTTP exchange with an MCP client acting for `ownerId` (checked before: lib/mcp/access.ts), whose body was read
 * under the API's rules (lib/http/body.ts). The SDK serves the current stateless revision and, through its
 * stateless fallback, the 2025 ones; each request gets a fresh server.
 */
export function serveMcp(request: Request, caller: McpCaller, body: unknown): Promise<Response> {
  // authInfo is how the SDK hands a caller's identity to the server it builds; the token was checked already.
  const authInfo = { token: "", clientId: "toolsmith-api-token", scopes: [], extra: { ...caller } };
  return handler.fetch(request, { authInfo, parsedBody: body });
}

const handler = createMcpHandler((context) => libraryServer(callerOf(context)), {
  // Requests the SDK refused (the client's mistakes, answered 4xx) and transport failures: one line each.
  onerror: (error) => console.warn(`MCP: ${error.message}`),
});

function callerOf({ authInfo }: McpRequestContext): McpCaller {
  const { ownerId, calls } = authInfo?.extra ?? {};
  // serveMcp always passes them: a request without them is a wiring mistake, refused rather than served as nobody.
  if (typeof ownerId !== "string" || typeof calls !== "function")
    throw new Error("An MCP request reached the server without its identity.");
  return { ownerId, calls: calls as McpCaller["calls"] };
}

/**
 * The server for one request: tools/list pages through the owner's library (latest versions, not deprecated), and
 * tools/call runs one of them through callTool, the path of chat and the REST API (limits, sandbox, audit,
 * statistics). The low-level Server, since the tools are the library's rows, read a page at a time.
 */
function libraryServer(caller: McpCaller): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler("tools/list", ({ params }) => answer(() => listLibrary(caller.ownerId, params?.cursor)));
  server.setRequestHandler("tools/call", ({ params }, context) =>
    answer(async () =>
      server.projectCallToolResult(
        await callLibraryTool(caller, params.name, params.arguments, context.mcpReq.signal),
        undefined,
      ),
    ),
  );
  return server;
}

/**
 * A handler's answer. A failure that is not the client's (the database, say) is logged and answered as an internal
 * error that leaks nothing, as the API's routes answer 500 (lib/http/route.ts): the SDK would send its message.
 */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    console.error("An MCP request failed:", error);
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      "Something went wrong on the server; the error was logged.",
    );
  }
}

async function listLibrary(
  ownerId: string,
  cursor: string | undefined,
): Promise<{ tools: Tool[]; nextCursor?: string }> {
  const rows = await listOwnedTools(ownerId, {
    scope: "library",
    deprecated: false,
    limit: MCP_PAGE_SIZE + 1,
    after: afterCursor(cursor),
  });
  const { page, nextCursor } = pageOf(rows, MCP_PAGE_SIZE, (last) => ({ name: last.name, id: last.lineageId }));
  // Two library tools can share a name (one moved from a conversation): a client is shown the one a call reaches.
  const newest = new Map<string, (typeof page)[number]>();
  for (const row of page) {
    const seen = newest.get(row.name);
    if (!seen || row.createdAt > seen.createdAt) newest.set(row.name, row);
  }
  const tools = [...newest.values()].map((row): Tool => ({
    name: row.name,
    description: row.description,
    inputSchema: offeredSchema(JSON.parse(row.parametersSchema) as Record<string, unknown>) as Tool["inputSchema"],
    annotations: toolAnnotations(toolSource(row)),
  }));
  return nextCursor ? { tools, nextCursor } : { tools };
}

/** The page position a cursor of ours names; any other cursor is the client's mistake (invalid params). */
function afterCursor(cursor: string | undefined) {
  try {
    return decodeCursor(cursor, ["name", "id"]);
  } catch (error) {
    if (error instanceof ApiError)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "The cursor is not one this server gave out; use the nextCursor of the previous page.",
      );
    throw error;
  }
}

/**
 * Run a library tool as the MCP client asked. A name that is not one of the owner's library tools is a protocol
 * error (invalid params, as the spec says of unknown tools); input that fails the tool's schema, and any failure of
 * the tool itself, is a result with `isError`, which the client's model reads and can act on.
 */
async function callLibraryTool(
  { ownerId, calls }: McpCaller,
  name: string,
  input: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const row = await findLibraryTool(ownerId, name);
  if (!row)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown tool: ${name}. tools/list names the tools of this library.`,
    );
  const { result } = await callTool({
    // The terms of the API's calls (the owner's default profile), so that the tool's own tools.call is served.
    ...(await calls()),
    name,
    tool: storedTool(row),
    input: input ?? {},
    caller: { ownerId, source: "mcp" },
    signal,
  });
  if (!result.ok) return { content: [{ type: "text", text: result.error }], isError: true };
  const output = result.output ?? null;
  const text = typeof output === "string" ? output : JSON.stringify(output);
  const structured = typeof output === "object" && output !== null && !Array.isArray(output);
  return {
    content: [{ type: "text", text }],
    ...(structured ? { structuredContent: output as Record<string, unknown> } : {}),
  };
}
