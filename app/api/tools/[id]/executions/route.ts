import { Executions } from "@/lib/contract/responses";
import { listToolExecutions } from "@/lib/db/queries/executions";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { ToolExecutionsQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { executionJson } from "@/lib/tools/library/wire";

/** The most recent calls of the tool, from chat and the API, newest first. */
export const GET = route(async (request, context: RouteParams) => {
  const { limit } = readQuery(request, ToolExecutionsQuery);
  const { tool } = await requireTool(request, context);
  const executions = await listToolExecutions(tool.lineageId, limit);
  return answer(Executions, { executions: executions.map(executionJson) });
});
