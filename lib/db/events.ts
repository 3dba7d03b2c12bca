import { liveSql, provider, sql } from "./client";
import { notifications } from "./notifications";
import { insertSql, toInt, toOptionalDate, type SqlExecutor, type SqlValue } from "./sql";
import { unpackRow, type EventRow } from "@/lib/events/packing";
import type { SequencedEvent } from "@/lib/events/types";

/** A row of some conversation's event log. */
export type ConversationEventRow = EventRow & { conversationId: string };

/** A live run's row, with the claim its run writes it under (lib/db/runs.ts). */
export type ClaimedEventRow = ConversationEventRow & { claim: string };

/**
 * One multi-row INSERT per batch; rows may belong to several conversations. `client` is a transaction's when
 * written inside one.
 */
export async function appendEvents(rows: ConversationEventRow[], client: SqlExecutor = sql): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    const { text, params } = eventInsert(rows.slice(start, start + INSERT_ROWS));
    await client.execute(text, params);
  }
}

/**
 * Live runs' events, gathered from every run by lib/events/event-writer.ts (at most INSERT_ROWS rows): this is the
 * hot path of streaming. One statement stores them and tells every instance's followers. Resolves with the claims
 * whose rows it refused because their run has another claim now (see `fencedEventInsert`).
 */
export async function appendLiveEvents(rows: ClaimedEventRow[]): Promise<Set<string>> {
  const storedThrough = new Map<string, number>();
  for (const { conversationId, lastSeq } of rows) storedThrough.set(conversationId, Math.max(lastSeq, storedThrough.get(conversationId) ?? 0));
  if (provider === "sqlite") {
    const { text, params } = eventInsert(rows);
    await liveSql.execute(text, params);
    notifications.announceStored(storedThrough);
    return new Set();
  }
  const claims = [...new Set(rows.map(({ claim }) => claim))];
  const announcement = notifications.announcementSql(storedThrough);
  const { text, params } = fencedEventInsert(rows, claims);
  const [{ held }] = await liveSql.rows<{ held: string | null }>(
    `${text} SELECT (SELECT string_agg("claim", ' ') FROM "held") AS "held", (SELECT count(*) FROM (SELECT ${announcement.sql}) AS "announced") AS "announced"`,
    [...params, ...announcement.params],
  );
  const stillHeld = new Set(held?.split(" "));
  return new Set(claims.filter((claim) => !stillHeld.has(claim)));
}

/**
 * PostgreSQL, where several instances write: the rows whose run still has the claim they were written under, the
 * CTE `stored`; the claims still held, the CTE "held". An instance cut off from the database stops its runs before their
 * leases run out (lib/agent/claims.ts), but a write it sent before may arrive later still (a partition that heals):
 * after a takeover, by another instance or by this one, it would take seqs the new claim numbers its events with.
 * The rows are locked FOR KEY SHARE, which a takeover's change of the (unique) claim waits for, so that it reads the
 * log with the writes in progress; a write that comes after the takeover finds another claim and stores nothing.
 * Lease renewals and finishes change other columns, and never wait for event writes. SQLite has one process per
 * database: a run's earlier instance has exited before it is taken over.
 */
function fencedEventInsert(rows: ClaimedEventRow[], claims: string[]): { text: string; params: SqlValue[] } {
  const columns = EVENT_COLUMNS.map((column) => `"${column}"`).join(", ");
  // Each row with its claim, which is not stored: it decides whether the row is.
  const placeholders = `(${[...EVENT_COLUMNS, "claim"].map(() => "?").join(", ")})`;
  // The VALUES of a sub-SELECT take no types from the table, and PostgreSQL reads untyped parameters as text: a
  // first row of typed NULLs (its NULL claim is held by no run) types every column, cheaper than a cast per parameter.
  const types = `(${EVENT_COLUMNS.map((column) => `CAST(NULL AS ${POSTGRES_TYPES[column]})`).join(", ")}, CAST(NULL AS TEXT))`;
  return {
    text:
      `WITH "held" AS (SELECT "claim" FROM "Run" WHERE "claim" IN (${claims.map(() => "?").join(", ")}) FOR KEY SHARE), ` +
      `stored AS (INSERT INTO "Event" (${columns}) SELECT ${columns} FROM (VALUES ${types}, ${rows.map(() => placeholders).join(", ")}) AS "row" (${columns}, "claim") ` +
      `WHERE "row"."claim" IN (SELECT "claim" FROM "held"))`,
    params: [...claims, ...eventParams(rows, (row) => [row.claim])],
  };
}

function eventInsert(rows: ConversationEventRow[]): { text: string; params: SqlValue[] } {
  return { text: insertSql("Event", EVENT_COLUMNS, rows.length), params: eventParams(rows) };
}

/** The rows' values, in the order of EVENT_COLUMNS, each row followed by what `more` gives for it. */
function eventParams<Row extends ConversationEventRow>(rows: Row[], more: (row: Row) => SqlValue[] = () => []): SqlValue[] {
  const createdAt = new Date();
  return rows.flatMap((row): SqlValue[] => [row.conversationId, row.seq, row.lastSeq, row.runId, row.type, row.data, createdAt, ...more(row)]);
}

const EVENT_COLUMNS = ["conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt"] as const;
const POSTGRES_TYPES: Record<(typeof EVENT_COLUMNS)[number], string> = {
  conversationId: "TEXT",
  seq: "INTEGER",
  lastSeq: "INTEGER",
  runId: "TEXT",
  type: "TEXT",
  data: "TEXT",
  createdAt: "TIMESTAMP(3)",
};

/** Rows per statement: 7 parameters each stays well under SQLite's and PostgreSQL's parameter limits. */
export const INSERT_ROWS = 1000;

/** Persisted events with seq in (after, before), in order; `client` is a transaction's when read inside one. */
export async function listEvents(
  conversationId: string,
  after = 0,
  before?: number,
  client: SqlExecutor = sql,
): Promise<SequencedEvent[]> {
  // A new run's own stream asks for the events between the last stored one and its first: none, so no query.
  if (before !== undefined && before <= after + 1) return [];
  // `before` only when given: seq is a 32-bit integer column on PostgreSQL.
  const rows = await client.rows<StoredRow>(
    `SELECT "seq", "lastSeq", "data" FROM "Event" WHERE "conversationId" = ? AND "lastSeq" > ?${before === undefined ? "" : ` AND "seq" < ?`} ORDER BY "seq"`,
    before === undefined ? [conversationId, after] : [conversationId, after, before],
  );
  return rows.flatMap((row) => unpackRow(storedRow(row))).filter(({ seq }) => seq > after && (before === undefined || seq < before));
}

export async function lastEventSeq(conversationId: string): Promise<number> {
  return (await lastStoredEvent(conversationId))?.lastSeq ?? 0;
}

/**
 * The conversation's last stored row: where its log ends, its type (a pack of deltas has its deltas') and run, and
 * when that run finished.
 */
export async function lastStoredEvent(conversationId: string): Promise<{ lastSeq: number; type: string; runId: string; finishedAt: Date | null } | undefined> {
  const [last] = await sql.rows<{ lastSeq: unknown; type: string; runId: string; finishedAt: unknown }>(
    `SELECT "Event"."lastSeq", "Event"."type", "Event"."runId", "Run"."finishedAt" FROM "Event" LEFT JOIN "Run" ON "Run"."id" = "Event"."runId" WHERE "Event"."conversationId" = ? ORDER BY "Event"."seq" DESC LIMIT 1`,
    [conversationId],
  );
  return last && { ...last, lastSeq: toInt(last.lastSeq), finishedAt: toOptionalDate(last.finishedAt) };
}

/**
 * Whether the row `row` of the run is stored as given: a write whose answer never came (its connection went silent)
 * may have been, and its retry is then refused for the seqs it took. On liveSql, as the write was.
 */
export async function isStored(conversationId: string, row: Pick<EventRow, "seq" | "lastSeq" | "runId">): Promise<boolean> {
  const found = await liveSql.rows(`SELECT 1 FROM "Event" WHERE "conversationId" = ? AND "seq" = ? AND "lastSeq" = ? AND "runId" = ?`, [conversationId, row.seq, row.lastSeq, row.runId]);
  return found.length > 0;
}

interface StoredRow {
  conversationId?: string;
  seq: unknown;
  lastSeq: unknown;
  data: string;
}

const storedRow = (row: StoredRow) => ({ seq: toInt(row.seq), lastSeq: toInt(row.lastSeq), data: row.data });

/**
 * The persisted events of several conversations, each after its own seq, in one query: the feed of a follower hub
 * reads every conversation it was told about at once.
 */
export async function listEventsAfter(after: Map<string, number>): Promise<Map<string, SequencedEvent[]>> {
  const events = new Map<string, SequencedEvent[]>([...after.keys()].map((conversationId) => [conversationId, []]));
  if (after.size === 0) return events;
  const rows =
    provider === "postgresql"
      ? await liveSql.rows<Required<StoredRow>>(EVENTS_AFTER_EACH_POSTGRES, [[...after.keys()], [...after.values()]])
      : await liveSql.rows<Required<StoredRow>>(
          `SELECT "conversationId", "seq", "lastSeq", "data" FROM "Event" WHERE ${[...after].map(() => `("conversationId" = ? AND "lastSeq" > ?)`).join(" OR ")} ORDER BY "conversationId", "seq"`,
          [...after].flat(),
        );
  for (const row of rows) events.get(row.conversationId)!.push(...unpackRow(storedRow(row)).filter(({ seq }) => seq > after.get(row.conversationId)!));
  return events;
}

/**
 * listEventsAfter's query on PostgreSQL, which plans a statement anew on every read: the portable form, an OR
 * branch per conversation, took 2.7 ms to plan and 0.7 ms to run for 100 conversations (EXPLAIN ANALYZE), and a
 * feed reads many times a second while runs stream. This one plans in 0.05 ms and runs in 0.35: the conversations
 * and their seqs as two arrays, each conversation's rows read by an index scan of its own (OFFSET 0 keeps the
 * LATERAL subquery from being flattened into a join, which PostgreSQL hashes over the whole table).
 */
const EVENTS_AFTER_EACH_POSTGRES =
  `SELECT "after"."conversationId", "new"."seq", "new"."lastSeq", "new"."data" FROM unnest(?::text[], ?::int[]) AS "after" ("conversationId", "seq") ` +
  `CROSS JOIN LATERAL (SELECT "seq", "lastSeq", "data" FROM "Event" WHERE "Event"."conversationId" = "after"."conversationId" AND "Event"."lastSeq" > "after"."seq" OFFSET 0) AS "new" ` +
  `ORDER BY "after"."conversationId", "new"."seq"`;
