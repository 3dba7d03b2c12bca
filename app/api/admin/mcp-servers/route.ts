import { McpServer, McpServers } from "@/lib/contract/responses";
import { NewMcpServer } from "@/lib/contract/requests";
import { requireAdmin } from "@/lib/accounts/admin";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { addEveryoneServerAndConnect, everyoneServersWithStatus } from "@/lib/tools/mcp-tools";

export const dynamic = "force-dynamic";

/** The MCP servers an admin connected for everyone, each with its status and tools; 404 for anyone who is not an admin. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return answer(McpServers, await everyoneServersWithStatus());
});

/**
 * Store a server for everyone (Streamable HTTP, its headers sealed), then connect to it, as a person's. The body is
 * read first, as every JSON route's.
 */
export const POST = route(async (request) => {
  const server = await readJson(request, NewMcpServer);
  await requireAdmin(request);
  return answer(McpServer, await addEveryoneServerAndConnect(server), 201);
});
