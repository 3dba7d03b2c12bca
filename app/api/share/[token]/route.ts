import { ConversationTrace } from "@/lib/contract/responses";
import { requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { loadTrace } from "@/lib/conversations/trace";

/** The shared conversation, read-only: messages, events and tools. */
export const GET = route(async (request, context: ShareParams) =>
  answer(ConversationTrace, await loadTrace(await requireSharedConversation(request, context))),
);
