import { toolStats } from "@/lib/db/executions";
import { listOwnedTools } from "@/lib/db/tools";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolDefinition, ToolListQuery } from "@/lib/http/contract";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { ApiError, route } from "@/lib/http/errors";
import { readQuery } from "@/lib/http/query";
import { toolJson } from "@/lib/tools/api-view";
import { builtinTools } from "@/lib/tools/builtin";
import { registerToolVersion } from "@/lib/tools/registration";

export const dynamic = "force-dynamic";

/** The requester's tools (latest versions), by name, a page at a time; `nextCursor` fetches the next page. */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  const { status, scope, q, limit, cursor } = readQuery(request, ToolListQuery);
  const rows = await listOwnedTools(identity, { deprecated: status === undefined ? undefined : status === "deprecated", scope, q, limit: limit + 1, after: decodeCursor(cursor, ["name", "id"]) });
  const page = rows.slice(0, limit);
  const stats = await toolStats(page.map((row) => row.lineageId));
  const last = page.at(-1);
  return Response.json({
    tools: page.map((row) => toolJson(row, stats.get(row.lineageId))),
    nextCursor: rows.length > limit && last ? encodeCursor({ name: last.name, id: last.lineageId }) : null,
  });
});

/** A new library tool, checked like register_tool: 422 with the violations when the code policy refuses it. */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  const definition = await readJson(request, ToolDefinition);
  if (builtinTools.some((tool) => tool.name === definition.name)) {
    throw new ApiError(422, "reserved_name", `"${definition.name}" is a built-in tool; choose another name.`);
  }
  const registration = await registerToolVersion(
    { ownerId: identity, conversationId: null, runId: null, name: definition.name, description: definition.description, parametersSchema: definition.parameters_schema, code: definition.code },
    request.signal,
  );
  if (!registration.ok) {
    const violations = registration.problem === "policy" ? registration.violations.map(({ message, line, column }) => ({ message, line, column })) : undefined;
    return Response.json({ error: { code: `tool_${registration.problem}`, message: registration.message }, violations }, { status: 422 });
  }
  return Response.json(toolJson(registration.row), { status: 201 });
});
