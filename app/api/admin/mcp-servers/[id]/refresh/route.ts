import { McpServer } from "@/lib/contract/responses";
import { requireAdmin } from "@/lib/accounts/admin";
import type { RouteParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { refreshEveryoneServer } from "@/lib/tools/mcp-tools";

/** Connect to a server for everyone anew and list its tools again; 404 for anyone who is not an admin. */
export const POST = route(async (request, { params }: RouteParams) => {
  await requireAdmin(request);
  return answer(McpServer, await refreshEveryoneServer((await params).id));
});
