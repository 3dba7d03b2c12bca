import { livePrepared, liveSql, provider, sql, transaction } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { notifications } from "@/lib/db/driver/notifications";
import {
  insertSql,
  toBoolean,
  toDate,
  toInt,
  toOptionalDate,
  type SqlExecutor,
  type SqlValue,
} from "@/lib/db/driver/sql";
import { unpackRow, type EventRow } from "@/lib/db/queries/event-packing";
import type { LoggedEvent, SequencedEvent } from "@/lib/contract/events";
import { MAX_EVENT_ID } from "@/lib/contract/log";

/** A row of some conversation's event log. */
export type ConversationEventRow = EventRow & { conversationId: string };

/** A live run's row, with the claim its run writes it under (lib/db/queries/runs.ts). */
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
 * whose rows it refused because their run has another claim now (see FENCED_EVENT_INSERT).
 */
export async function appendLiveEvents(rows: ClaimedEventRow[]): Promise<Set<string>> {
  const storedThrough = new Map<string, number>();
  for (const { conversationId, lastSeq } of rows)
    storedThrough.set(conversationId, Math.max(lastSeq, storedThrough.get(conversationId) ?? 0));
  if (provider === "sqlite") {
    const { text, params } = eventInsert(rows);
    await liveSql.execute(text, params);
    notifications.announceStored(storedThrough);
    return new Set();
  }
  const claims = [...new Set(rows.map(({ claim }) => claim))];
  const { channel, payloads } = notifications.announcement(storedThrough);
  const column = <Key extends keyof ClaimedEventRow>(key: Key) => rows.map((row) => row[key]);
  const [{ held }] = await livePrepared<{ held: string | null }>("toolsmith_append_live_events", FENCED_EVENT_INSERT, [
    claims,
    column("conversationId"),
    column("seq"),
    column("lastSeq"),
    column("runId"),
    column("type"),
    column("data"),
    column("claim"),
    databaseClock.now().toISOString(),
    channel,
    payloads,
  ]);
  const stillHeld = new Set(held?.split(" "));
  return new Set(claims.filter((claim) => !stillHeld.has(claim)));
}

/**
 * appendLiveEvents' statement on PostgreSQL: stores the rows whose run still has their claim, says which claims are
 * held, and announces the batch (docs/architecture.md, "Fencing the writes"). One text for any batch (one array per
 * column), so that it is prepared; createdAt goes as ISO text, which a timestamp without time zone takes as UTC.
 */
const FENCED_EVENT_INSERT =
  `WITH "held" AS (SELECT "claim" FROM "Run" WHERE "claim" = ANY($1::text[]) FOR KEY SHARE), ` +
  `"stored" AS (INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") ` +
  `SELECT "conversationId", "seq", "lastSeq", "runId", "type", "data", $9::timestamp(3) ` +
  `FROM unnest($2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[]) AS "row" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "claim") ` +
  `WHERE "row"."claim" IN (SELECT "claim" FROM "held")) ` +
  `SELECT (SELECT string_agg("claim", ' ') FROM "held") AS "held", (SELECT count(pg_notify($10, "payload")) FROM unnest($11::text[]) AS "payload") AS "announced"`;

function eventInsert(rows: ConversationEventRow[]): { text: string; params: SqlValue[] } {
  return { text: insertSql("Event", EVENT_COLUMNS, rows.length), params: eventParams(rows) };
}

/** The rows' values, in the order of EVENT_COLUMNS. */
function eventParams(rows: ConversationEventRow[]): SqlValue[] {
  const createdAt = databaseClock.now();
  return rows.flatMap((row): SqlValue[] => [
    row.conversationId,
    row.seq,
    row.lastSeq,
    row.runId,
    row.type,
    row.data,
    createdAt,
  ]);
}

const EVENT_COLUMNS = ["conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt"] as const;

/** Rows per statement: 7 parameters each stays well under SQLite's limit (PostgreSQL's live statement takes arrays). */
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
    `SELECT "seq", "lastSeq", "data", "createdAt" FROM "Event" WHERE "conversationId" = ? AND "lastSeq" > ?${before === undefined ? "" : ` AND "seq" < ?`} ORDER BY "seq"`,
    before === undefined ? [conversationId, after] : [conversationId, after, before],
  );
  return rows.flatMap(unpackStored).filter(({ seq }) => seq > after && (before === undefined || seq < before));
}

/** The stored events of one run of the conversation, in order; none for a run the conversation does not have. */
export async function listRunEvents(conversationId: string, runId: string): Promise<SequencedEvent[]> {
  const rows = await sql.rows<StoredRow>(
    `SELECT "seq", "lastSeq", "data", "createdAt" FROM "Event" WHERE "conversationId" = ? AND "runId" = ? ORDER BY "seq"`,
    [conversationId, runId],
  );
  return rows.flatMap(unpackStored);
}

export async function lastEventSeq(conversationId: string): Promise<number> {
  return (await lastStoredEvent(conversationId))?.lastSeq ?? 0;
}

/**
 * The conversation's last row of a run's (rows people write, lib/review/, say nothing of where a run's events end),
 * with its run: `lastStoredEvent` and `appendWhileIdle` read how the last run's log ends from it.
 */
const LAST_RUN_ROW =
  `FROM "Event" LEFT JOIN "Run" ON "Run"."id" = "Event"."runId" WHERE "Event"."conversationId" = ? ` +
  `AND "Event"."type" NOT IN ('annotation_added', 'annotation_deleted', 'verdict_added') ORDER BY "Event"."seq" DESC LIMIT 1`;

/**
 * Where the conversation's log ends (its last seq), and its last row of a run's: its type (a pack of deltas has its
 * deltas'), its run, and when that run finished. Rows of reviews are skipped for the latter: one written while no
 * run runs comes after a run's end, and one a run wrote comes before its end.
 */
export async function lastStoredEvent(
  conversationId: string,
): Promise<{ lastSeq: number; type: string; runId: string; finishedAt: Date | null; claimEnded: boolean } | undefined> {
  const [last] = await sql.rows<{
    lastSeq: unknown;
    type: string;
    runId: string;
    finishedAt: unknown;
    claimEnded: unknown;
  }>(
    `SELECT (SELECT MAX("lastSeq") FROM "Event" WHERE "conversationId" = ?) AS "lastSeq", "Event"."type", "Event"."runId", "Run"."finishedAt", "Run"."claim" IS NULL AS "claimEnded" ${LAST_RUN_ROW}`,
    [conversationId, conversationId],
  );
  return (
    last && {
      ...last,
      lastSeq: toInt(last.lastSeq),
      finishedAt: toOptionalDate(last.finishedAt),
      claimEnded: toBoolean(last.claimEnded),
    }
  );
}

/**
 * Store a review's event at the end of the log, when no run of the conversation runs (a running run writes it,
 * lib/review/log.ts) and the last run's end is stored: its seq, or undefined, and nothing written, when not. The conversation's row is locked
 * first: a run's claim inserts a Run row, whose foreign key locks that row too, so the claim waits for this to
 * commit and reads the log's end after it; a claim committed before is seen. Followers are told at commit.
 */
export async function appendWhileIdle(conversationId: string, event: LoggedEvent): Promise<number | undefined> {
  const seq = await transaction(async (tx) => {
    const client = sql.within(tx);
    if (provider === "postgresql")
      await client.rows(`SELECT "id" FROM "Conversation" WHERE "id" = ? FOR UPDATE`, [conversationId]);
    const running = await client.rows(`SELECT 1 FROM "Run" WHERE "conversationId" = ? AND "status" = 'running'`, [
      conversationId,
    ]);
    if (running.length > 0) return undefined;
    // A run that finished a moment ago may still be storing its run_finished (waiting for this lock): the review
    // comes after it, so not yet. A run whose end was given up on has had its claim ended (run.ts `awaitLogEnd`).
    const [lastOfRun] = await client.rows<{ type: string; claimEnded: unknown }>(
      `SELECT "Event"."type", "Run"."claim" IS NULL AS "claimEnded" ${LAST_RUN_ROW}`,
      [conversationId],
    );
    if (lastOfRun && lastOfRun.type !== "run_finished" && !toBoolean(lastOfRun.claimEnded)) return undefined;
    const [{ lastSeq }] = await client.rows<{ lastSeq: unknown }>(
      `SELECT COALESCE(MAX("lastSeq"), 0) AS "lastSeq" FROM "Event" WHERE "conversationId" = ?`,
      [conversationId],
    );
    const next = toInt(lastSeq) + 1;
    await appendEvents(
      [{ conversationId, seq: next, lastSeq: next, runId: event.runId, type: event.type, data: JSON.stringify(event) }],
      client,
    );
    if (provider === "postgresql") {
      const { channel, payloads } = notifications.announcement(new Map([[conversationId, next]]));
      for (const payload of payloads) await client.execute(`SELECT pg_notify(?, ?)`, [channel, payload]);
    }
    return next;
  });
  if (seq !== undefined && provider === "sqlite") notifications.announceStored(new Map([[conversationId, seq]]));
  return seq;
}

/**
 * Whether the row `row` of the run is stored as given: a write whose answer never came (its connection went silent)
 * may have been, and its retry is then refused for the seqs it took. On the live pool, as the write was.
 */
export async function isStored(
  conversationId: string,
  row: Pick<EventRow, "seq" | "lastSeq" | "runId">,
): Promise<boolean> {
  const found = await liveSql.rows(
    `SELECT 1 FROM "Event" WHERE "conversationId" = ? AND "seq" = ? AND "lastSeq" = ? AND "runId" = ?`,
    [conversationId, row.seq, row.lastSeq, row.runId],
  );
  return found.length > 0;
}

interface StoredRow {
  conversationId?: string;
  seq: unknown;
  lastSeq: unknown;
  data: string;
  createdAt: unknown;
}

const unpackStored = (row: StoredRow) =>
  unpackRow({ seq: toInt(row.seq), lastSeq: toInt(row.lastSeq), data: row.data }, toDate(row.createdAt).getTime());

/**
 * The persisted events of several conversations, each after its own seq, in one query: the feed of a follower hub
 * reads every conversation it was told about at once.
 */
export async function listEventsAfter(after: Map<string, number>): Promise<Map<string, SequencedEvent[]>> {
  const events = new Map<string, SequencedEvent[]>([...after.keys()].map((conversationId) => [conversationId, []]));
  if (after.size === 0) return events;
  const rows =
    provider === "postgresql"
      ? // One seq beyond the column's range would fail the cast, and with it the read of every conversation.
        await livePrepared<Required<StoredRow>>("toolsmith_events_after_each", EVENTS_AFTER_EACH_POSTGRES, [
          [...after.keys()],
          [...after.values()].map((seq) => Math.min(seq, MAX_EVENT_ID)),
        ])
      : await liveSql.rows<Required<StoredRow>>(
          `SELECT "conversationId", "seq", "lastSeq", "data", "createdAt" FROM "Event" WHERE ${[...after].map(() => `("conversationId" = ? AND "lastSeq" > ?)`).join(" OR ")} ORDER BY "conversationId", "seq"`,
          [...after].flat(),
        );
  for (const row of rows)
    events
      .get(row.conversationId)!
      .push(...unpackStored(row).filter(({ seq }) => seq > after.get(row.conversationId)!));
  return events;
}

/**
 * listEventsAfter's query on PostgreSQL: the portable OR form is planned anew on every read. Two arrays, one text for
 * any number of conversations (prepared), an index scan per conversation; OFFSET 0 keeps the LATERAL subquery from
 * being flattened into a join, which PostgreSQL hashes over the whole table.
 */
const EVENTS_AFTER_EACH_POSTGRES =
  `SELECT "after"."conversationId", "new"."seq", "new"."lastSeq", "new"."data", "new"."createdAt" FROM unnest($1::text[], $2::int[]) AS "after" ("conversationId", "seq") ` +
  `CROSS JOIN LATERAL (SELECT "seq", "lastSeq", "data", "createdAt" FROM "Event" WHERE "Event"."conversationId" = "after"."conversationId" AND "Event"."lastSeq" > "after"."seq" OFFSET 0) AS "new" ` +
  `ORDER BY "after"."conversationId", "new"."seq"`;
