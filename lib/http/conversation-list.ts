import { listConversations } from "@/lib/db/conversations";
import { decodeCursor, encodeCursor } from "./cursor";

export const CONVERSATIONS_PER_PAGE = 50;
export const NO_CONVERSATIONS = { conversations: [], nextCursor: null };

/** A page of an identity's conversations as the API and the pages send it: newest first, with the next cursor. */
export async function conversationPage(identity: string, limit = CONVERSATIONS_PER_PAGE, cursor?: string) {
  const position = decodeCursor(cursor, ["createdAt", "id"]);
  const { conversations, next } = await listConversations(identity, limit, position && { createdAt: new Date(position.createdAt), id: position.id });
  return { conversations, nextCursor: next && encodeCursor({ createdAt: next.createdAt.toISOString(), id: next.id }) };
}
