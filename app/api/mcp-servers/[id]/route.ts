import { requireIdentity, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { removeMcpServer } from "@/lib/mcp-servers/servers";

export const DELETE = route(async (request, { params }: RouteParams) => {
  await removeMcpServer(await requireIdentity(request), (await params).id);
  return new Response(null, { status: 204 });
});
