import { activeRun } from "@/lib/agent/active-runs";
import { conversationEventStream } from "@/lib/events/replay";
import { lastEventId, requireConversation, type RouteParams } from "@/lib/http/conversations";
import { route } from "@/lib/http/errors";

export const GET = route(async (request, context: RouteParams) => {
  const conversation = await requireConversation(context);
  return conversationEventStream(conversation.id, lastEventId(request), activeRun(conversation.id)?.channel);
});
