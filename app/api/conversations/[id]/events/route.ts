import { activeRun } from "@/lib/agent/run";
import { conversationEventStream } from "@/lib/events/replay";
import { resumePoint, requireConversation, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/errors";

export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  return conversationEventStream(conversation.id, resumePoint(request), activeRun(conversation.id)?.channel);
});
