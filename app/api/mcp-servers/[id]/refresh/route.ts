import { McpServer } from "@/lib/contract/responses";
import { requireIdentity, type RouteParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { refreshMcpServer } from "@/lib/tools/mcp-tools";

/** Connect to one of your servers anew and list its tools again: connected with them, or failed with why. */
export const POST = route(async (request, { params }: RouteParams) =>
  answer(McpServer, await refreshMcpServer(await requireIdentity(request), (await params).id)),
);
