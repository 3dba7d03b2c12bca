import { NewToolExample } from "@/lib/contract/requests";
import { Tool } from "@/lib/contract/responses";
import { toolStats } from "@/lib/db/queries/executions";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { keepExample } from "@/lib/tools/library/keep-example";
import { toolJson } from "@/lib/tools/library/wire";

/** Keep an example (or a failing one) on the tool's latest version, once it passes (or fails) there: 201. */
export const POST = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  const kept = await keepExample(tool, await readJson(request, NewToolExample), request.signal);
  const stats = (await toolStats([tool.lineageId])).get(tool.lineageId);
  return answer(Tool, toolJson(kept, stats), 201);
});
