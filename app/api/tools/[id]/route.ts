import { Tool } from "@/lib/contract/responses";
import { updateTool } from "@/lib/db/queries/tools";
import { requireTool, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolChange, ToolVersionQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { withStats } from "@/lib/tools/library/list";
import { removeTool } from "@/lib/tools/library/versions";

/** The tool with its statistics: its latest version, or `?version=N`. */
export const GET = route(async (request, context: RouteParams) => {
  const { version } = readQuery(request, ToolVersionQuery);
  const { tool } = await requireTool(request, context, version);
  const [shown] = await withStats([tool]);
  return answer(Tool, shown);
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
  const [shown] = await withStats([updated]);
  return answer(Tool, shown);
});

/** Every version goes; conversations that showed it keep their traces. A tool other tools call stays: 409. */
export const DELETE = route(async (request, context: RouteParams) => {
  const { tool } = await requireTool(request, context);
  await removeTool(tool);
  return new Response(null, { status: 204 });
});
