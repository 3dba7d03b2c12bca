import { recordAudit } from "@/lib/db/queries/audit";
import { recordExecution } from "@/lib/db/queries/executions";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolExecution, ToolVersionQuery } from "@/lib/contract/requests";
import { ApiError, route } from "@/lib/http/errors";
import { readQuery } from "@/lib/http/query";
import { registeredTool, runToolCode } from "@/lib/tools/registered-tool";
import { callOutcome } from "@/lib/tools/toolset";

/**
 * Run the tool (its latest version, or `?version=N`) in the sandbox with the same limits as in chat, and count
 * the call in its statistics. Input that does not match its schema is a 400 with the problems.
 */
export const POST = route(async (request, context: RouteParams) => {
  const { version } = readQuery(request, ToolVersionQuery);
  const { tool, identity } = await requireTool(request, context, version);
  const { input } = await readJson(request, ToolExecution);
  const parsed = registeredTool(tool).parse(input);
  if (!parsed.ok)
    throw new ApiError(
      400,
      "invalid_input",
      `The input does not match the tool's parameters_schema: ${parsed.problems.join("; ")}.`,
    );

  const started = performance.now();
  const result = await runToolCode(tool.code, parsed.input, request.signal);
  const durationMs = performance.now() - started;
  const outcome = callOutcome(result);
  await Promise.all([
    recordAudit({ ownerId: identity, tool: tool.name, decision: "allowed", input, outcome, durationMs }),
    recordExecution({
      source: "api",
      toolName: tool.name,
      toolId: tool.id,
      input,
      output: result.ok ? result.output : undefined,
      error: result.ok ? undefined : result.error,
      status: outcome,
      durationMs,
    }),
  ]);
  return Response.json({
    success: result.ok,
    output: result.ok ? result.output : null,
    error: result.ok ? null : result.error,
    truncated: result.ok && Boolean(result.truncated),
    executionTime: Number((durationMs / 1000).toFixed(4)),
  });
});
