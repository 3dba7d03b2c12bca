import { db } from "./client";

const summary = { id: true, title: true, createdAt: true, updatedAt: true } as const;

export function createConversation(ownerId: string, title?: string) {
  return db.conversation.create({ data: { ownerId, title }, select: summary });
}

export function listConversations(ownerId: string) {
  return db.conversation.findMany({ where: { ownerId }, orderBy: { createdAt: "desc" }, select: summary, take: 500 });
}

/** The conversation, if `ownerId` owns it: the ownership check behind every conversation route and page. */
export function findOwnedConversation(id: string, ownerId: string) {
  return db.conversation.findFirst({ where: { id, ownerId }, select: summary });
}


export function updateConversationTitle(id: string, title: string) {
  return db.conversation.update({ where: { id }, data: { title }, select: summary });
}

/** Deletes everything of the conversation, its own tools included; tools it put in the library stay there. */
export async function deleteConversation(id: string): Promise<void> {
  await db.$transaction([db.tool.deleteMany({ where: { conversationId: id, scope: "conversation" } }), db.conversation.delete({ where: { id } })]);
}
