import { Tool, ToolPage } from "@/lib/contract/responses";
import { requireIdentity } from "@/lib/http/access";
import { z } from "zod";
import { checkBody, readJson } from "@/lib/http/body";
import { NewToolDefinition, ToolDescription, ToolListQuery } from "@/lib/contract/requests";
import { noCalls } from "@/lib/db/queries/executions";
import { answer, route } from "@/lib/http/route";
import { acceptsEventStream, generationResponse } from "@/lib/agent/tool-writer-response";
import { readQuery } from "@/lib/http/query";
import { toolPage } from "@/lib/tools/library/list";
import { reservedName, toolJson, toolRefused } from "@/lib/tools/library/wire";
import { isReservedName } from "@/lib/tools/names";
import { registerToolVersion } from "@/lib/tools/library/versions";
import { apiCodeCallsOf } from "@/lib/accounts/admin";
import type { CodeCalls } from "@/lib/tools/types";

export const dynamic = "force-dynamic";

/** The requester's tools (latest versions), by name, a page at a time; `nextCursor` fetches the next page. */
export const GET = route(async (request) =>
  answer(ToolPage, await toolPage(await requireIdentity(request), readQuery(request, ToolListQuery))),
);

/**
 * A new library tool. With code, checked and tested like register_tool: 422 with the violations or the failed
 * examples when it is refused. With only a description (SEAT's form), the model writes it: JSON once it is done, or
 * every attempt as it happens for a client that accepts text/event-stream.
 */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  // The two forms are told apart by their code, so that a mistake in either is reported in that form's terms.
  const body = await readJson(request, z.record(z.string(), z.unknown()));
  const calls = await apiCodeCallsOf(identity);
  if ("code" in body || "python_code" in body || "parameters_schema" in body) {
    return createFromCode(checkBody(NewToolDefinition, body), identity, request.signal, calls);
  }
  const description = checkBody(ToolDescription, body);
  return generationResponse(request, identity, description, acceptsEventStream(request), calls);
});

async function createFromCode(
  definition: NewToolDefinition,
  identity: string,
  signal: AbortSignal,
  calls: CodeCalls | undefined,
) {
  if (isReservedName(definition.name)) throw reservedName(definition.name);
  const registration = await registerToolVersion(
    {
      ownerId: identity,
      conversationId: null,
      runId: null,
      name: definition.name,
      description: definition.description,
      parametersSchema: definition.parameters_schema,
      language: definition.language,
      code: definition.code,
      examples: definition.examples,
      uses: definition.uses,
      secrets: definition.secrets,
    },
    signal,
    calls,
  );
  if (!registration.ok) throw toolRefused(registration);
  const { row, dependents } = registration;
  return answer(Tool, { ...toolJson(row, noCalls()), dependents }, 201);
}
