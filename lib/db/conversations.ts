import { db } from "./client";

const summary = { id: true, title: true, profile: true, createdAt: true, updatedAt: true } as const;

export function createConversation(ownerId: string, fields: { title?: string; profile?: string }) {
  return db.conversation.create({ data: { ownerId, ...fields }, select: summary });
}

export interface ConversationCursor {
  createdAt: Date;
  id: string;
}

/** Up to `limit` of an identity's conversations, newest first, after a position. */
export function listConversations(ownerId: string, limit: number, after?: ConversationCursor) {
  return db.conversation.findMany({
    where: { ownerId, ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: summary,
    take: limit,
  });
}

/** The conversation, if `ownerId` owns it: the ownership check behind every conversation route and page. */
export function findOwnedConversation(id: string, ownerId: string) {
  return db.conversation.findFirst({ where: { id, ownerId }, select: summary });
}


export function updateConversation(id: string, change: { title?: string; profile?: string }) {
  return db.conversation.update({ where: { id }, data: change, select: summary });
}

/** Deletes everything of the conversation, its own tools included; tools it put in the library stay there. */
export async function deleteConversation(id: string): Promise<void> {
  await db.$transaction([db.tool.deleteMany({ where: { conversationId: id, scope: "conversation" } }), db.conversation.delete({ where: { id } })]);
}
