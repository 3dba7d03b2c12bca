import { requireIdentity, requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { answerFork } from "@/lib/conversations/fork";

/**
 * "Continue in my chats", or "Continue from here" with `{ eventId }`: a copy, with its events and tools, owned by
 * the viewer. The original is untouched.
 */
export const POST = route(async (request, context: ShareParams) => {
  const identity = await requireIdentity(request);
  const conversation = await requireSharedConversation(request, context);
  return answerFork(request, conversation.id, identity);
});
