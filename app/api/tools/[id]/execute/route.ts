import { ToolRun } from "@/lib/contract/responses";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolExecution, ToolVersionQuery } from "@/lib/contract/requests";
import { ApiError } from "@/lib/platform/errors";
import { proxyChecked } from "@/lib/http/proxy-checks";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { callFromApi } from "@/lib/tools/library/stored-tool";
import { apiCallsOf } from "@/lib/accounts/admin";
import { toolRunJson } from "@/lib/tools/library/wire";

/**
 * Run the tool (its latest version, or `?version=N`) through the same call path as chat: the sandbox's limits, the
 * statistics and the audit log. Input that does not match its schema is a 400 with the problems. proxy.ts leaves it
 * out: it applies the proxy's checks itself.
 */
export const POST = proxyChecked(
  route(async (request, context: RouteParams) => {
    const { version } = readQuery(request, ToolVersionQuery);
    const { tool, identity } = await requireTool(request, context, version);
    const { input } = await readJson(request, ToolExecution);
    const calls = await apiCallsOf(identity);
    const { result, invalidInput, durationMs } = await callFromApi(tool, input, calls, request.signal);
    if (invalidInput) {
      const problems = invalidInput.join("; ");
      throw new ApiError(400, "invalid_input", `The input does not match the tool's parameters_schema: ${problems}.`);
    }
    return answer(ToolRun, toolRunJson(result, durationMs));
  }),
);
