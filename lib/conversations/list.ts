import { listConversations } from "@/lib/db/queries/conversations";
import { decodeCursor, pageOf } from "@/lib/http/cursor";

export const CONVERSATIONS_PER_PAGE = 50;
export const NO_CONVERSATIONS = { conversations: [], nextCursor: null };

/** A page of an identity's conversations as the API and the pages send it (ConversationPage): newest first. */
export async function conversationPage(
  identity: string,
  limit = CONVERSATIONS_PER_PAGE,
  cursor?: string,
  thumbsDown = false,
) {
  const position = decodeCursor(cursor, ["createdAt", "id"]);
  const rows = await listConversations(
    identity,
    limit + 1,
    position && { createdAt: new Date(position.createdAt), id: position.id },
    thumbsDown,
  );
  const { page, nextCursor } = pageOf(rows, limit, (last) => ({
    createdAt: last.createdAt.toISOString(),
    id: last.id,
  }));
  const conversations = page.map((row) => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
  return { conversations, nextCursor };
}
