import { activeRun } from "@/lib/runs/run";
import { conversationEventStream } from "@/lib/events/replay";
import { resumePoint, watching, requireShare, type ShareParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { holdOpenStream } from "@/lib/http/rate-limit";
import { shareWatch } from "@/lib/share/revocation";

export const GET = route(async (request, context: ShareParams) => {
  const { conversation, visibility } = await requireShare(request, context);
  const { token } = await context.params;
  const from = resumePoint(request);
  return conversationEventStream(conversation.id, from, {
    live: activeRun(conversation.id)?.channel,
    watch: watching(request),
    cutWhen: (cut) => shareWatch.watch(token, conversation.id, visibility, cut),
    onClose: holdOpenStream(request),
  });
});
