import { db, sql } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { toDate } from "@/lib/db/driver/sql";

const summary = { id: true, title: true, profile: true, createdAt: true, updatedAt: true } as const;

/** The summary's columns, for the statements every message runs (lib/db/driver/sql.ts). */
const SUMMARY_COLUMNS = `"id", "title", "profile", "createdAt", "updatedAt"`;
interface SummaryRow {
  id: string;
  title: string;
  profile: string | null;
  createdAt: unknown;
  updatedAt: unknown;
}
const summaryOf = (row: SummaryRow) => ({ ...row, createdAt: toDate(row.createdAt), updatedAt: toDate(row.updatedAt) });

export function createConversation(ownerId: string, fields: { title?: string; profile?: string }) {
  const now = databaseClock.now();
  return db.conversation.create({ data: { ownerId, ...fields, createdAt: now, updatedAt: now }, select: summary });
}

export interface ConversationCursor {
  createdAt: Date;
  id: string;
}

/** Up to `limit` of an identity's conversations, newest first, after a position. */
/** `thumbsDown`: only those with a run that a reviewer's latest verdict is a thumbs down on. */
export function listConversations(ownerId: string, limit: number, after?: ConversationCursor, thumbsDown = false) {
  return db.conversation.findMany({
    where: {
      ownerId,
      ...(thumbsDown ? { verdicts: { some: { verdict: "down" } } } : {}),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: summary,
    take: limit,
  });
}

/** The conversation, if `ownerId` owns it: the ownership check behind every conversation route and page. */
export async function findOwnedConversation(id: string, ownerId: string) {
  const [row] = await sql.rows<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM "Conversation" WHERE "id" = ? AND "ownerId" = ?`,
    [id, ownerId],
  );
  return row ? summaryOf(row) : null;
}

/** Who owns the conversation; undefined when it does not exist. */
export async function conversationOwner(id: string): Promise<string | undefined> {
  const [row] = await sql.rows<{ ownerId: string }>(`SELECT "ownerId" FROM "Conversation" WHERE "id" = ?`, [id]);
  return row?.ownerId;
}

/**
 * An identity's conversations related to one by forking: its forks, and the one it was forked from (when the same
 * identity owns it), oldest first.
 */
export async function relatedConversations(id: string, ownerId: string) {
  const conversation = await db.conversation.findUnique({ where: { id }, select: { forkedFromId: true } });
  const source = conversation?.forkedFromId;
  return db.conversation.findMany({
    where: { ownerId, OR: [{ forkedFromId: id }, ...(source ? [{ id: source }] : [])] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { ...summary, forkedFromId: true },
  });
}

/** Change a conversation's fields; undefined ones stay as they are. Null when it no longer exists. */
export async function updateConversation(id: string, change: { title?: string; profile?: string }) {
  const [row] = await sql.rows<SummaryRow>(
    `UPDATE "Conversation" SET "title" = COALESCE(?, "title"), "profile" = COALESCE(?, "profile"), "updatedAt" = ? WHERE "id" = ? RETURNING ${SUMMARY_COLUMNS}`,
    [change.title ?? null, change.profile ?? null, databaseClock.now(), id],
  );
  return row ? summaryOf(row) : null;
}

/** Deletes everything of the conversation, its own tools included; tools it put in the library stay there. */
export async function deleteConversation(id: string): Promise<void> {
  await db.$transaction([
    db.tool.deleteMany({ where: { conversationId: id, scope: "conversation" } }),
    db.conversation.delete({ where: { id } }),
  ]);
}
