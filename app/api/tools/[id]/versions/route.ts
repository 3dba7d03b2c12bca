import { listToolVersions } from "@/lib/db/queries/tools";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/errors";
import { toolJson } from "@/lib/tools/api-view";

/** Every version, oldest first. */
export const GET = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  return Response.json({ versions: (await listToolVersions(tool.lineageId)).map((version) => toolJson(version)) });
});
