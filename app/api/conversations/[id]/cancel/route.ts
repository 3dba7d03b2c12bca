import { activeRun } from "@/lib/agent/run";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, route } from "@/lib/http/errors";

export const POST = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const run = activeRun(conversation.id);
  if (!run) throw conflict("No run of this conversation is active.");
  run.cancel();
  return Response.json({ runId: run.id, status: "cancelling" }, { status: 202 });
});
