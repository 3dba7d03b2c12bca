import { db } from "./client";
import type { LoggedEvent, SequencedEvent } from "@/lib/events/types";

export async function appendEvents(conversationId: string, events: SequencedEvent[]): Promise<void> {
  await db.event.createMany({
    data: events.map(({ seq, event }) => ({
      conversationId,
      seq,
      runId: event.runId,
      type: event.type,
      data: JSON.stringify(event),
    })),
  });
}

/** Persisted events with seq in (after, before), in order. */
export async function listEvents(conversationId: string, after = 0, before = Number.MAX_SAFE_INTEGER): Promise<SequencedEvent[]> {
  const rows = await db.event.findMany({
    where: { conversationId, seq: { gt: after, lt: before } },
    orderBy: { seq: "asc" },
    select: { seq: true, data: true },
  });
  return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.data) as LoggedEvent }));
}

export async function lastEventSeq(conversationId: string): Promise<number> {
  const last = await db.event.findFirst({ where: { conversationId }, orderBy: { seq: "desc" }, select: { seq: true } });
  return last?.seq ?? 0;
}
