import { RunStopping } from "@/lib/contract/responses";
import { stopRun } from "@/lib/runs/remote";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";

/** Stop the conversation's run, whichever instance executes it. */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const runId = await stopRun(conversation.id);
  if (!runId) throw conflict("No run of this conversation is active.");
  return answer(RunStopping, { runId, status: "cancelling" }, 202);
});
