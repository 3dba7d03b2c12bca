import { randomUUID } from "node:crypto";
import { sql } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { toDate } from "@/lib/db/driver/sql";

type Role = "user" | "assistant";

/**
 * Model text may hold a lone surrogate (a token cut inside a pair), which the database refuses: it becomes U+FFFD.
 * Stored once by its id: given one (and its time), the same message can be sent again when the answer to a first
 * attempt was lost.
 */
export async function createMessage({
  id = randomUUID(),
  createdAt = databaseClock.now(),
  ...data
}: {
  id?: string;
  createdAt?: Date;
  conversationId: string;
  runId: string;
  role: Role;
  content: string;
}) {
  const message = { id, ...data, content: data.content.toWellFormed(), createdAt };
  await sql.execute(
    `INSERT INTO "Message" ("id", "conversationId", "runId", "role", "content", "createdAt") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO NOTHING`,
    [message.id, message.conversationId, message.runId, message.role, message.content, message.createdAt],
  );
  return message;
}

export async function listMessages(conversationId: string) {
  const rows = await sql.rows<{ id: string; runId: string; role: Role; content: string; createdAt: unknown }>(
    `SELECT "id", "runId", "role", "content", "createdAt" FROM "Message" WHERE "conversationId" = ? ORDER BY "createdAt"`,
    [conversationId],
  );
  return rows.map((row) => ({ ...row, createdAt: toDate(row.createdAt) }));
}
