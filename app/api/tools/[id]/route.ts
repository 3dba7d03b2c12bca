import { Tool } from "@/lib/contract/responses";
import { toolStats } from "@/lib/db/queries/executions";
import { deleteTool, updateTool } from "@/lib/db/queries/tools";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolChange, ToolVersionQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { toolJson } from "@/lib/tools/library/wire";

/** The tool with its statistics: its latest version, or `?version=N`. */
export const GET = route(async (request, context: RouteParams) => {
  const { version } = readQuery(request, ToolVersionQuery);
  const { tool } = await requireTool(request, context, version);
  return answer(Tool, toolJson(tool, (await toolStats([tool.lineageId])).get(tool.lineageId)));
});

/** Deprecate or reactivate, move to or from the library, or describe it anew. */
export const PATCH = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  const { status, scope, description } = await readJson(request, ToolChange);
  await updateTool(tool.lineageId, {
    scope,
    description,
    deprecated: status === undefined ? undefined : status === "deprecated",
  });
  const { tool: updated } = await requireTool(request, context);
  return answer(Tool, toolJson(updated, (await toolStats([tool.lineageId])).get(tool.lineageId)));
});

/** Every version goes; conversations that showed it keep their traces. */
export const DELETE = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  await deleteTool(tool.lineageId);
  return new Response(null, { status: 204 });
});
