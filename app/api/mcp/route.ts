import { z } from "zod";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { requireMcpCaller } from "@/lib/mcp/access";
import { serveMcp } from "@/lib/mcp/server";
import { apiCallsOf } from "@/lib/accounts/admin";

export const dynamic = "force-dynamic";

/**
 * The tool library as a Model Context Protocol server (Streamable HTTP, stateless): Host and Origin checked, then
 * the API token, then the body under the API's rules (size, JSON, depth), then the SDK answers. Only POST:
 * stateless serving has no stream to GET nor session to DELETE.
 */
export const POST = route(async (request) => {
  const ownerId = await requireMcpCaller(request);
  const calls = () => apiCallsOf(ownerId);
  return serveMcp(request, { ownerId, calls }, await readJson(request, z.unknown()));
});
