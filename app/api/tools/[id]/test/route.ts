import { ToolVersionQuery } from "@/lib/contract/requests";
import { ToolTestRun } from "@/lib/contract/responses";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { runStoredExamples } from "@/lib/tools/library/stored-tool";
import { apiCodeCallsOf } from "@/lib/accounts/admin";

/** Run a version's examples again (the latest, or `?version=N`): each with what the tool returns today. */
export const POST = route(async (request, context: RouteParams) => {
  const { version } = readQuery(request, ToolVersionQuery);
  const { tool, identity } = await requireTool(request, context, version);
  const outcomes = await runStoredExamples(tool, request.signal, await apiCodeCallsOf(identity));
  return answer(ToolTestRun, {
    version: tool.version,
    passed: outcomes.length > 0 && outcomes.every((outcome) => outcome.passed),
    outcomes,
  });
});
