import { ToolVersions } from "@/lib/contract/responses";
import { listToolVersions } from "@/lib/db/queries/tools";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { toolJson } from "@/lib/tools/library/wire";

/** Every version, oldest first. */
export const GET = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  return answer(ToolVersions, {
    versions: (await listToolVersions(tool.lineageId)).map((version) => toolJson(version)),
  });
});
