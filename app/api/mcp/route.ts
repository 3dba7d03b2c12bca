import { z } from "zod";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { requireMcpCaller } from "@/lib/mcp/access";
import { serveMcp } from "@/lib/mcp/server";

export const dynamic = "force-dynamic";

/**
 * The tool library as a Model Context Protocol server (Streamable HTTP, stateless): Host and Origin checked, then
 * the API token, then the body under the API's rules (size, JSON, depth), then the SDK answers. Only POST:
 * stateless serving has no stream to GET nor session to DELETE.
 */
export const POST = route(async (request) => {
  const ownerId = await requireMcpCaller(request);
  return serveMcp(request, ownerId, await readJson(request, z.unknown()));
});
