import { beforeAll, describe, expect, it } from "vitest";
import { freshDatabaseUrl, prepareDatabase, testProvider } from "../support/database";

// The library itself, on the provider under test (SQLite, or PostgreSQL in the postgresql project).
process.env.DATABASE_URL = freshDatabaseUrl();

let db: typeof import("@/lib/db/client").db;
let sql: typeof import("@/lib/db/client").sql;
let config: typeof import("@/lib/config").config;
let listEventsAfter: typeof import("@/lib/db/events").listEventsAfter;
let renewLeases: typeof import("@/lib/db/runs").renewLeases;
let appendLiveEvents: typeof import("@/lib/db/events").appendLiveEvents;
let listEvents: typeof import("@/lib/db/events").listEvents;
let notifications: typeof import("@/lib/db/notifications").notifications;

beforeAll(async () => {
  await prepareDatabase(process.env.DATABASE_URL!);
  ({ db, sql } = await import("@/lib/db/client"));
  ({ config } = await import("@/lib/config"));
  ({ appendLiveEvents, listEvents, listEventsAfter } = await import("@/lib/db/events"));
  ({ renewLeases } = await import("@/lib/db/runs"));
  ({ notifications } = await import("@/lib/db/notifications"));
});

/** Every "<conversationId> <lastSeq>" line announced on the events topic, in the order they arrive. */
async function announced(): Promise<string[]> {
  const lines: string[] = [];
  notifications.subscribe("events", (payload) => lines.push(...payload.split("\n")));
  await notifications.ready();
  return lines;
}

const row = (conversationId: string, seq: number) => ({ conversationId, seq, lastSeq: seq, runId: "run", type: "step_started", data: JSON.stringify({ type: "step_started", step: seq, runId: "run" }) });

describe("live events, stored and announced in one statement", () => {
  it("announces each conversation's last stored seq once the rows are stored, and nothing for rows that were refused", async () => {
    const lines = await announced();
    const [first, second] = await Promise.all([db.conversation.create({ data: { ownerId: "owner" } }), db.conversation.create({ data: { ownerId: "owner" } })]);

    await appendLiveEvents([row(first.id, 1), row(first.id, 2), row(second.id, 1)]);
    await expect.poll(() => lines).toEqual([`${first.id} 2`, `${second.id} 1`]);
    expect((await listEvents(first.id)).map(({ seq }) => seq)).toEqual([1, 2]);

    // Seq 2 is taken: the whole statement is refused, its new row too, and nothing is announced for it.
    await expect(appendLiveEvents([row(first.id, 3), row(first.id, 2)])).rejects.toThrow();
    // Announcements arrive in the order their statements committed: once the next one is here, a refused one would be too.
    await appendLiveEvents([row(second.id, 2)]);
    await expect.poll(() => lines).toEqual([`${first.id} 2`, `${second.id} 1`, `${second.id} 2`]);
    expect((await listEvents(first.id)).map(({ seq }) => seq)).toEqual([1, 2]);
  });

  it("announces every conversation of a batch too large for one notification", async () => {
    const lines = await announced();
    const conversations = await Promise.all(Array.from({ length: 400 }, () => db.conversation.create({ data: { ownerId: "owner" }, select: { id: true } })));
    await appendLiveEvents(conversations.map(({ id }) => row(id, 7)));
    // 400 lines of some 30 characters: more than PostgreSQL takes in one payload (under 8000 bytes).
    await expect.poll(() => lines.length).toBe(400);
    expect(new Set(lines)).toEqual(new Set(conversations.map(({ id }) => `${id} 7`)));
  });
});

describe("the live path", () => {
  it.runIf(testProvider === "postgresql")("stores, announces and reads live events and renews leases while every connection of the main pool is busy", async () => {
    const lines = await announced();
    const { id } = await db.conversation.create({ data: { ownerId: "owner" } });
    const done: string[] = [];
    // A burst of requests: more slow statements than the main pool has connections, the rest waiting in line.
    const burst = Array.from({ length: config.databasePool + 5 }, () => sql.rows("SELECT 1 AS slept FROM pg_sleep(1.5)").then(() => done.push("request")));
    await Promise.all([
      appendLiveEvents([row(id, 1)]).then(() => done.push("write")),
      expect.poll(() => lines, { timeout: 5_000 }).toContain(`${id} 1`).then(() => done.push("announcement")),
      listEventsAfter(new Map([[id, 0]])).then(() => done.push("read")),
      renewLeases("instance", ["run"], new Date()).then(() => done.push("lease renewal")),
    ]);
    await Promise.all(burst);
    expect(done.slice(0, 4).sort()).toEqual(["announcement", "lease renewal", "read", "write"]);
  });
});
