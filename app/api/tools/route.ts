import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolDefinition, ToolListQuery } from "@/lib/contract/requests";
import { ApiError, route } from "@/lib/http/errors";
import { readQuery } from "@/lib/http/query";
import { toolPage } from "@/lib/http/tool-list";
import { toolJson } from "@/lib/tools/api-view";
import { isBuiltinName } from "@/lib/tools/names";
import { registerToolVersion } from "@/lib/tools/registration";

export const dynamic = "force-dynamic";

/** The requester's tools (latest versions), by name, a page at a time; `nextCursor` fetches the next page. */
export const GET = route(async (request) =>
  Response.json(await toolPage(await requireIdentity(request), readQuery(request, ToolListQuery))),
);

/** A new library tool, checked like register_tool: 422 with the violations when the code policy refuses it. */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  const definition = await readJson(request, ToolDefinition);
  if (isBuiltinName(definition.name)) {
    throw new ApiError(422, "reserved_name", `"${definition.name}" is a built-in tool; choose another name.`);
  }
  const registration = await registerToolVersion(
    {
      ownerId: identity,
      conversationId: null,
      runId: null,
      name: definition.name,
      description: definition.description,
      parametersSchema: definition.parameters_schema,
      code: definition.code,
    },
    request.signal,
  );
  if (!registration.ok) {
    const violations =
      registration.problem === "policy"
        ? registration.violations.map(({ message, line, column }) => ({ message, line, column }))
        : undefined;
    return Response.json(
      { error: { code: `tool_${registration.problem}`, message: registration.message }, violations },
      { status: 422 },
    );
  }
  return Response.json(toolJson(registration.row), { status: 201 });
});
