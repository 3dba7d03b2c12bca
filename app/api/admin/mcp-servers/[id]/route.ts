import { requireAdmin } from "@/lib/accounts/admin";
import type { RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { removeEveryoneServer } from "@/lib/mcp-servers/servers";

export const DELETE = route(async (request, { params }: RouteParams) => {
  await requireAdmin(request);
  await removeEveryoneServer((await params).id);
  return new Response(null, { status: 204 });
});
