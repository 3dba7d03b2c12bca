import { activeRun } from "@/lib/runs/run";
import { conversationEventStream } from "@/lib/events/replay";
import { resumePoint, watching, requireConversation, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { holdOpenStream } from "@/lib/http/rate-limit";

export const GET = route(async (request, context: RouteParams) => {
  const { conversation, identity } = await requireConversation(request, context);
  const from = resumePoint(request);
  return conversationEventStream(conversation.id, from, {
    live: activeRun(conversation.id)?.channel,
    watch: watching(request),
    onClose: holdOpenStream(request, identity),
  });
});
