import { db } from "./client";

export function createMessage(data: { conversationId: string; runId: string; role: "user" | "assistant"; content: string }) {
  return db.message.create({ data });
}

export function listMessages(conversationId: string) {
  return db.message.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { id: true, runId: true, role: true, content: true, createdAt: true },
  });
}
