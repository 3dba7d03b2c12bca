import { listConversations } from "@/lib/db/queries/conversations";
import { decodeCursor, pageOf } from "./cursor";

export const CONVERSATIONS_PER_PAGE = 50;
export const NO_CONVERSATIONS = { conversations: [], nextCursor: null };

/** A page of an identity's conversations as the API and the pages send it: newest first, with the next cursor. */
export async function conversationPage(identity: string, limit = CONVERSATIONS_PER_PAGE, cursor?: string) {
  const position = decodeCursor(cursor, ["createdAt", "id"]);
  const rows = await listConversations(
    identity,
    limit + 1,
    position && { createdAt: new Date(position.createdAt), id: position.id },
  );
  const { page, nextCursor } = pageOf(rows, limit, (last) => ({
    createdAt: last.createdAt.toISOString(),
    id: last.id,
  }));
  return { conversations: page, nextCursor };
}
