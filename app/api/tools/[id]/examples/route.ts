import { NewToolExample } from "@/lib/contract/requests";
import { Tool } from "@/lib/contract/responses";
import { toolStats } from "@/lib/db/queries/executions";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { keepExample } from "@/lib/tools/library/keep-example";
import { apiCodeCallsOf } from "@/lib/accounts/admin";
import { toolJson } from "@/lib/tools/library/wire";

/** Keep an example (or a failing one) on the tool's latest version, once it passes (or fails) there: 201. */
export const POST = route(async (request, context: RouteParams) => {
  const { tool, identity } = await requireTool(request, context);
  const body = await readJson(request, NewToolExample);
  const kept = await keepExample(tool, body, request.signal, await apiCodeCallsOf(identity));
  const stats = (await toolStats([tool.lineageId])).get(tool.lineageId);
  return answer(Tool, toolJson(kept, stats), 201);
});
