import { route } from "@/lib/http/errors";
import { requireMcpCaller } from "@/lib/mcp/access";
import { serveMcp } from "@/lib/mcp/server";

export const dynamic = "force-dynamic";

/**
 * The tool library as a Model Context Protocol server (Streamable HTTP, stateless): Host and Origin checked, then
 * the API token, then the SDK answers. Only POST: stateless serving has no stream to GET nor session to DELETE.
 */
export const POST = route(async (request) => serveMcp(request, await requireMcpCaller(request)));
