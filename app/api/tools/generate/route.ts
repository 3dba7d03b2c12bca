import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ToolDescription } from "@/lib/contract/requests";
import { route } from "@/lib/http/route";
import { generationResponse } from "@/lib/agent/tool-writer-response";
import { apiCodeCallsOf } from "@/lib/accounts/admin";

export const dynamic = "force-dynamic";

/**
 * Write a tool from a description: every attempt streams as Server-Sent Events, unless the client accepts only
 * JSON (`Accept: application/json`), which gets the outcome as POST /api/tools with a description answers it.
 */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  const body = await readJson(request, ToolDescription);
  const jsonOnly = /^application\/json\b/.test(request.headers.get("accept") ?? "");
  return generationResponse(request, identity, body, !jsonOnly, await apiCodeCallsOf(identity));
});
