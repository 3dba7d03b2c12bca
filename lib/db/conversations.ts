import { db } from "./client";

const summary = { id: true, title: true, createdAt: true, updatedAt: true } as const;

export function createConversation(title?: string) {
  return db.conversation.create({ data: { title }, select: summary });
}

export function listConversations() {
  return db.conversation.findMany({ orderBy: { createdAt: "desc" }, select: summary, take: 500 });
}

export function findConversation(id: string) {
  return db.conversation.findUnique({ where: { id }, select: summary });
}

export function updateConversationTitle(id: string, title: string) {
  return db.conversation.update({ where: { id }, data: { title }, select: summary });
}

export async function deleteConversation(id: string): Promise<void> {
  await db.conversation.delete({ where: { id } });
}
