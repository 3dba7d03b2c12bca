import { requireConversation, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { answerFork } from "@/lib/conversations/fork";

/** A copy of one's own conversation, whole or up to the end of a step (`{ eventId }`), to try another path. */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation, identity } = await requireConversation(request, context);
  return answerFork(request, conversation.id, identity);
});
