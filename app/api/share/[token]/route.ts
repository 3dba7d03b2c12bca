import { ConversationTrace } from "@/lib/contract/responses";
import { requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { loadTrace } from "@/lib/conversations/trace";
import { sharedFileUrl } from "@/lib/files/views";

/** The shared conversation, read-only: messages, events and tools. */
export const GET = route(async (request, context: ShareParams) => {
  const conversation = await requireSharedConversation(request, context);
  return answer(ConversationTrace, await loadTrace(conversation, sharedFileUrl((await context.params).token)));
});
