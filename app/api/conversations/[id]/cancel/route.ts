import { stopRun } from "@/lib/runs/remote";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, route } from "@/lib/http/route";

/** Stop the conversation's run, whichever instance executes it. */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const runId = await stopRun(conversation.id);
  if (!runId) throw conflict("No run of this conversation is active.");
  return Response.json({ runId, status: "cancelling" }, { status: 202 });
});
