import { Prisma } from "@/lib/generated/sqlite/client";
import { db } from "./client";
import { unpackRow, type EventRow } from "@/lib/events/packing";
import type { SequencedEvent } from "@/lib/events/types";

/** A row of some conversation's event log. */
export type ConversationEventRow = EventRow & { conversationId: string };

/**
 * One multi-row INSERT per batch: this is the hot path of streaming, and a raw statement skips the client's
 * per-call query planning. Prisma still renders the placeholders for the database at hand, so it stays
 * provider-neutral. Rows may belong to several conversations (lib/events/event-writer.ts batches every live run's).
 */
export async function appendEvents(rows: ConversationEventRow[], client: Pick<typeof db, "$executeRaw"> = db): Promise<void> {
  const createdAt = new Date();
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    const values = rows
      .slice(start, start + INSERT_ROWS)
      .map((row) => Prisma.sql`(${row.conversationId}, ${row.seq}, ${row.lastSeq}, ${row.runId}, ${row.type}, ${row.data}, ${createdAt})`);
    await client.$executeRaw`INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") VALUES ${Prisma.join(values)}`;
  }
}

/** Rows per statement: 7 parameters each stays well under SQLite's and PostgreSQL's parameter limits. */
const INSERT_ROWS = 1000;

/** Persisted events with seq in (after, before), in order; `client` is a transaction's when read inside one. */
export async function listEvents(
  conversationId: string,
  after = 0,
  before?: number,
  client: Pick<typeof db, "event"> = db,
): Promise<SequencedEvent[]> {
  // A new run's own stream asks for the events between the last stored one and its first: none, so no query.
  if (before !== undefined && before <= after + 1) return [];
  const rows = await client.event.findMany({
    // `before` only when given: seq is a 32-bit integer column on PostgreSQL.
    where: { conversationId, lastSeq: { gt: after }, ...(before === undefined ? {} : { seq: { lt: before } }) },
    orderBy: { seq: "asc" },
    select: { seq: true, lastSeq: true, data: true },
  });
  return rows.flatMap(unpackRow).filter(({ seq }) => seq > after && (before === undefined || seq < before));
}

export async function lastEventSeq(conversationId: string): Promise<number> {
  const last = await db.event.findFirst({ where: { conversationId }, orderBy: { seq: "desc" }, select: { lastSeq: true } });
  return last?.lastSeq ?? 0;
}

/**
 * The persisted events of several conversations, each after its own seq, in one query: the feed of a follower hub
 * reads every conversation it was told about at once.
 */
export async function listEventsAfter(after: Map<string, number>): Promise<Map<string, SequencedEvent[]>> {
  const rows = await db.event.findMany({
    where: { OR: [...after].map(([conversationId, seq]) => ({ conversationId, lastSeq: { gt: seq } })) },
    orderBy: [{ conversationId: "asc" }, { seq: "asc" }],
    select: { conversationId: true, seq: true, lastSeq: true, data: true },
  });
  const events = new Map<string, SequencedEvent[]>([...after.keys()].map((conversationId) => [conversationId, []]));
  for (const row of rows) events.get(row.conversationId)!.push(...unpackRow(row).filter(({ seq }) => seq > after.get(row.conversationId)!));
  return events;
}
