import { McpServer, McpServers } from "@/lib/contract/responses";
import { NewMcpServer } from "@/lib/contract/requests";
import { profileChoiceFor } from "@/lib/accounts/admin";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { addMcpServerAndConnect, mcpServersWithStatus } from "@/lib/tools/mcp-tools";
import { findProfile } from "@/lib/settings/profiles";

/** Your servers, and the profiles file's that your default profile may use (read-only), each with its status and tools. */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  const { defaultProfile } = await profileChoiceFor(identity);
  return answer(McpServers, await mcpServersWithStatus(identity, findProfile(defaultProfile)));
});

/**
 * Store a server (Streamable HTTP; its headers and token sealed, never answered), then connect to it: 201 whether or
 * not it could be reached, its status saying which.
 */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  return answer(McpServer, await addMcpServerAndConnect(identity, await readJson(request, NewMcpServer)), 201);
});
