import { db } from "./client";

/** Model text may hold a lone surrogate (a token cut inside a pair), which the database refuses: it becomes U+FFFD. */
export function createMessage(data: { conversationId: string; runId: string; role: "user" | "assistant"; content: string }) {
  return db.message.create({ data: { ...data, content: data.content.toWellFormed() } });
}

export function listMessages(conversationId: string) {
  return db.message.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { id: true, runId: true, role: true, content: true, createdAt: true },
  });
}
