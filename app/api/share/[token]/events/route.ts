import { activeRun } from "@/lib/agent/run";
import { conversationEventStream } from "@/lib/events/replay";
import { resumePoint, requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { route } from "@/lib/http/errors";
import { shareWatch } from "@/lib/share-revocation";

export const GET = route(async (request, context: ShareParams) => {
  const conversation = await requireSharedConversation(context);
  const { token } = await context.params;
  return conversationEventStream(conversation.id, resumePoint(request), activeRun(conversation.id)?.channel, (cut) => shareWatch.watch(token, conversation.id, cut));
});
