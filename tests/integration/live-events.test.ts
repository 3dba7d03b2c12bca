import { beforeAll, describe, expect, it } from "vitest";
import { freshDatabaseUrl, prepareDatabase, slowInserts, testProvider } from "../support/database";

// The library itself, on the provider under test (SQLite, or PostgreSQL in the postgresql project).
process.env.DATABASE_URL = freshDatabaseUrl();

let db: typeof import("@/lib/db/driver/client").db;
let sql: typeof import("@/lib/db/driver/client").sql;
let config: typeof import("@/lib/settings/config").config;
let listEventsAfter: typeof import("@/lib/db/queries/events").listEventsAfter;
let renewLeases: typeof import("@/lib/db/queries/runs").renewLeases;
let runs: typeof import("@/lib/db/queries/runs");
let lastEventSeq: typeof import("@/lib/db/queries/events").lastEventSeq;
let appendLiveEvents: typeof import("@/lib/db/queries/events").appendLiveEvents;
let listEvents: typeof import("@/lib/db/queries/events").listEvents;
let notifications: typeof import("@/lib/db/driver/notifications").notifications;

beforeAll(async () => {
  await prepareDatabase(process.env.DATABASE_URL!);
  ({ db, sql } = await import("@/lib/db/driver/client"));
  ({ config } = await import("@/lib/settings/config"));
  ({ appendLiveEvents, lastEventSeq, listEvents, listEventsAfter } = await import("@/lib/db/queries/events"));
  runs = await import("@/lib/db/queries/runs");
  ({ renewLeases } = runs);
  ({ notifications } = await import("@/lib/db/driver/notifications"));
});

/** Every "<conversationId> <lastSeq>" line announced on the events topic, in the order they arrive. */
async function announced(): Promise<string[]> {
  const lines: string[] = [];
  notifications.subscribe("events", (payload) => lines.push(...payload.split("\n")));
  await notifications.ready();
  return lines;
}

/** The instance that writes, in these tests. */
const HERE = "instance-here";

/** A new conversation with a running run that instance `HERE` executes; the run's id is the conversation's. */
async function conversationRunHere(): Promise<{ id: string }> {
  const { id } = await db.conversation.create({ data: { ownerId: "owner" }, select: { id: true } });
  await runs.claimRun({
    id,
    conversationId: id,
    model: "scripted",
    instanceId: HERE,
    claim: claimOf(id),
    leaseUntil: new Date(Date.now() + 60_000),
  });
  return { id };
}

/** The claim conversationRunHere's run was made under. */
const claimOf = (id: string) => `claim-of-${id}`;

/** Store rows under their runs' first claims; resolves with the claims refused. */
const write = (rows: ReturnType<typeof row>[]) =>
  appendLiveEvents(rows.map((event) => ({ ...event, claim: claimOf(event.runId) })));

/** Take the run over (lib/db/queries/runs.ts; as its lease has run out) for `instanceId`, under `claim`. */
async function takeOver(id: string, instanceId: string, claim: string): Promise<void> {
  const { leaseUntil } = await db.run.findUniqueOrThrow({ where: { id } });
  expect(await runs.takeOverRun({ id, leaseUntil }, instanceId, claim, new Date(Date.now() + 60_000))).toBe(true);
}

/** An event row of the conversation's run (see conversationRunHere). */
const row = (conversationId: string, seq: number) => ({
  conversationId,
  seq,
  lastSeq: seq,
  runId: conversationId,
  type: "step_started",
  data: JSON.stringify({ type: "step_started", step: seq, runId: conversationId }),
});

describe("live events, stored and announced in one statement", () => {
  it("announces each conversation's last stored seq once the rows are stored, and nothing for rows that were refused", async () => {
    const lines = await announced();
    const [first, second] = await Promise.all([conversationRunHere(), conversationRunHere()]);

    await write([row(first.id, 1), row(first.id, 2), row(second.id, 1)]);
    await expect.poll(() => lines).toEqual([`${first.id} 2`, `${second.id} 1`]);
    expect((await listEvents(first.id)).map(({ seq }) => seq)).toEqual([1, 2]);

    // Seq 2 is taken: the whole statement is refused, its new row too, and nothing is announced for it.
    await expect(write([row(first.id, 3), row(first.id, 2)])).rejects.toThrow();
    // Announcements arrive in the order their statements committed: once the next one is here, a refused one would be too.
    await write([row(second.id, 2)]);
    await expect.poll(() => lines).toEqual([`${first.id} 2`, `${second.id} 1`, `${second.id} 2`]);
    expect((await listEvents(first.id)).map(({ seq }) => seq)).toEqual([1, 2]);
  });

  it("announces every conversation of a batch too large for one notification", async () => {
    const lines = await announced();
    const conversations = await Promise.all(Array.from({ length: 400 }, () => conversationRunHere()));
    await write(conversations.map(({ id }) => row(id, 7)));
    // 400 lines of some 30 characters: more than PostgreSQL takes in one payload (under 8000 bytes).
    await expect.poll(() => lines.length).toBe(400);
    expect(new Set(lines)).toEqual(new Set(conversations.map(({ id }) => `${id} 7`)));
  });

  it("stores when the rows were written as Prisma stores a DateTime, whatever this process's time zone", async () => {
    const { id } = await conversationRunHere();
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      await write([row(id, 1)]);
    } finally {
      process.env.TZ = zone;
      if (zone === undefined) delete process.env.TZ;
    }
    const { createdAt } = await db.event.findFirstOrThrow({ where: { conversationId: id } });
    expect(Math.abs(createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });
});

describe("writes made under a claim the run no longer has", () => {
  it.runIf(testProvider === "postgresql")(
    "stores a run's events only while its row has their claim; the other runs of the batch are stored",
    async () => {
      const [taken, kept] = await Promise.all([conversationRunHere(), conversationRunHere()]);
      expect(await write([row(taken.id, 1), row(kept.id, 1)])).toEqual(new Set());
      await takeOver(taken.id, "instance-elsewhere", `claim-elsewhere-${taken.id}`);

      // A write this instance sent before it noticed: refused for that run only, and said so.
      expect(await write([row(taken.id, 2), row(kept.id, 2)])).toEqual(new Set([claimOf(taken.id)]));
      expect((await listEvents(taken.id)).map(({ seq }) => seq)).toEqual([1]);
      expect((await listEvents(kept.id)).map(({ seq }) => seq)).toEqual([1, 2]);
    },
  );

  it.runIf(testProvider === "postgresql")(
    "refuses what this instance wrote under its earlier claim once it took the run back itself",
    async () => {
      const { id } = await conversationRunHere();
      // Fenced during a partition, then taken back by the same instance (the only one) when the database answered.
      await takeOver(id, HERE, `claim-taken-back-${id}`);
      expect(await write([row(id, 1)])).toEqual(new Set([claimOf(id)]));
      // In one batch, a late write of the earlier claim and one of the new claim: only the new claim's is stored.
      const late = { ...row(id, 2), claim: claimOf(id) };
      expect(await appendLiveEvents([late, { ...row(id, 1), claim: `claim-taken-back-${id}` }])).toEqual(
        new Set([claimOf(id)]),
      );
      expect((await listEvents(id)).map(({ seq }) => seq)).toEqual([1]);
    },
  );

  it.runIf(testProvider === "postgresql")(
    "makes a takeover wait for a write in progress, so that the new owner reads the log with it",
    async () => {
      const { id } = await conversationRunHere();
      // A slow write: the statement takes a second to store this conversation's rows.
      const slowWrite = await slowInserts(process.env.DATABASE_URL!, {
        table: "Event",
        conversationId: id,
        seconds: 1,
      });
      try {
        const written = write([row(id, 1)]);
        // The write holds its lock once its trigger sleeps.
        await slowWrite.inProgress();
        await takeOver(id, "instance-elsewhere", `claim-elsewhere-${id}`);
        // Taken over only once the write was stored, which the new owner reads, and numbers its events after.
        expect(await lastEventSeq(id)).toBe(1);
        expect(await written).toEqual(new Set());
      } finally {
        await slowWrite.remove();
      }
    },
  );

  it("finishes a run only under the claim its row has", async () => {
    const { id } = await conversationRunHere();
    expect(await runs.finishRun(id, "completed", 1, `claim-elsewhere-${id}`)).toBe(false);
    expect(await db.run.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "running", finishedAt: null });
    expect(await runs.finishRun(id, "completed", 1, claimOf(id))).toBe(true);
    expect(await db.run.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "completed",
      steps: 1,
      leaseUntil: null,
    });
  });

  it("takes a finish sent again as done once the next run ended the claim, and only its own finish", async () => {
    const { id } = await conversationRunHere();
    const finishedAt = new Date();
    // Stored, its answer lost; the next run then ends the claim before the finish is sent again.
    expect(await runs.finishRun(id, "completed", 1, claimOf(id), finishedAt)).toBe(true);
    await runs.endClaimOfFinishedRun(id);
    expect(await runs.finishRun(id, "completed", 1, claimOf(id), finishedAt)).toBe(true);

    // Taken over and finished elsewhere, the same way, before the claim was ended: not this finish.
    const { id: other } = await conversationRunHere();
    await takeOver(other, "instance-elsewhere", `claim-elsewhere-${other}`);
    expect(await runs.finishRun(other, "completed", 1, `claim-elsewhere-${other}`)).toBe(true);
    await runs.endClaimOfFinishedRun(other);
    expect(await runs.finishRun(other, "completed", 1, claimOf(other), finishedAt)).toBe(false);
  });
});

describe("a feed's read of several conversations", () => {
  it("gives each conversation's events after its own seq, in order, a pack of deltas cut where the follower is", async () => {
    const [steps, deltas, caughtUp, empty] = await Promise.all([
      conversationRunHere(),
      conversationRunHere(),
      conversationRunHere(),
      conversationRunHere(),
    ]);
    const pack = {
      conversationId: deltas.id,
      seq: 2,
      lastSeq: 4,
      runId: deltas.id,
      type: "text_delta",
      data: JSON.stringify({ type: "text_delta", step: 1, runId: deltas.id, deltas: ["a", "b", "c"] }),
    };
    await write([
      row(steps.id, 1),
      row(steps.id, 2),
      row(steps.id, 3),
      row(deltas.id, 1),
      pack,
      row(deltas.id, 5),
      row(caughtUp.id, 1),
    ]);

    const read = await listEventsAfter(
      new Map([
        [steps.id, 1],
        [deltas.id, 2],
        [caughtUp.id, 1],
        [empty.id, 0],
      ]),
    );
    expect([...read.keys()].sort()).toEqual([steps.id, deltas.id, caughtUp.id, empty.id].sort());
    expect(read.get(steps.id)!.map(({ seq }) => seq)).toEqual([2, 3]);
    // Rows written as logs were before events had `at`: their events take the time they were stored.
    const at = read.get(deltas.id)![0].event.at;
    expect(Math.abs(at - Date.now())).toBeLessThan(60_000);
    expect(read.get(deltas.id)).toEqual([
      { seq: 3, event: { type: "text_delta", step: 1, delta: "b", runId: deltas.id, at } },
      { seq: 4, event: { type: "text_delta", step: 1, delta: "c", runId: deltas.id, at } },
      { seq: 5, event: { type: "step_started", step: 5, runId: deltas.id, at } },
    ]);
    expect(read.get(caughtUp.id)).toEqual([]);
    expect(read.get(empty.id)).toEqual([]);
  });

  it("reads the others when one is asked for after an id beyond the log's range", async () => {
    const [steps, beyond] = await Promise.all([conversationRunHere(), conversationRunHere()]);
    await write([row(steps.id, 1), row(steps.id, 2), row(beyond.id, 1)]);
    // PostgreSQL's seq is a 32-bit integer: one id past it failed the whole statement, every follower's read.
    const read = await listEventsAfter(
      new Map([
        [steps.id, 1],
        [beyond.id, 3_000_000_000],
      ]),
    );
    expect(read.get(steps.id)!.map(({ seq }) => seq)).toEqual([2]);
    expect(read.get(beyond.id)).toEqual([]);
  });
});

describe("the live path", () => {
  it.runIf(testProvider === "postgresql")(
    "stores, announces and reads live events and renews leases while every connection of the main pool is busy",
    async () => {
      const lines = await announced();
      const { id } = await conversationRunHere();
      const done: string[] = [];
      // A burst of requests: more slow statements than the main pool has connections, the rest waiting in line.
      const burst = Array.from({ length: config.databasePool + 5 }, () =>
        sql.rows("SELECT 1 AS slept FROM pg_sleep(1.5)").then(() => done.push("request")),
      );
      await Promise.all([
        write([row(id, 1)]).then(() => done.push("write")),
        expect
          .poll(() => lines, { timeout: 5_000 })
          .toContain(`${id} 1`)
          .then(() => done.push("announcement")),
        listEventsAfter(new Map([[id, 0]])).then(() => done.push("read")),
        renewLeases("instance", ["run"], new Date()).then(() => done.push("lease renewal")),
      ]);
      await Promise.all(burst);
      expect(done.slice(0, 4).sort()).toEqual(["announcement", "lease renewal", "read", "write"]);
    },
  );
});

describe("an approval answered on an instance that does not execute its run", () => {
  /** A row of the conversation's run holding one event. */
  const eventRow = (conversationId: string, seq: number, event: Record<string, unknown> & { type: string }) => ({
    conversationId,
    seq,
    lastSeq: seq,
    runId: conversationId,
    type: event.type,
    data: JSON.stringify({ ...event, runId: conversationId }),
  });

  it("is taken as the answer it was when sent again as its run finishes, before the end of the run's log is stored", async () => {
    const { answerApproval } = await import("@/lib/runs/remote");
    const { id } = await conversationRunHere();
    await write([
      eventRow(id, 1, {
        type: "approval_requested",
        approvalId: "approval-1",
        callId: "call-1",
        tool: "send_email",
        input: {},
      }),
    ]);
    // The run took the answer and finished: it stores its row's outcome first, then the end of its log.
    expect(await runs.finishRun(id, "completed", 1, claimOf(id))).toBe(true);
    const again = answerApproval(id, "approval-1", true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await write([
      eventRow(id, 2, { type: "approval_resolved", approvalId: "approval-1", approved: true }),
      eventRow(id, 3, { type: "run_finished", status: "completed", steps: 1 }),
    ]);
    expect(await again).toBe("answered");
  });

  it("is refused, not left to be sent again, when the finished run's log never gets its end", async () => {
    const { answerApproval } = await import("@/lib/runs/remote");
    const { id } = await conversationRunHere();
    await write([
      eventRow(id, 1, {
        type: "approval_requested",
        approvalId: "approval-3",
        callId: "call-3",
        tool: "send_email",
        input: {},
      }),
    ]);
    // Its row finished, and the writes of the rest of its log failed: no run will take the answer.
    expect(await runs.finishRun(id, "completed", 1, claimOf(id))).toBe(true);
    expect(await answerApproval(id, "approval-3", true)).toBe("not waiting");
  });

  it("is refused once the finished run's log shows the call was not answered so", async () => {
    const { answerApproval } = await import("@/lib/runs/remote");
    const { id } = await conversationRunHere();
    await write([
      eventRow(id, 1, {
        type: "approval_requested",
        approvalId: "approval-2",
        callId: "call-2",
        tool: "send_email",
        input: {},
      }),
      eventRow(id, 2, { type: "approval_resolved", approvalId: "approval-2", approved: false }),
      eventRow(id, 3, { type: "run_finished", status: "cancelled", steps: 1 }),
    ]);
    expect(await runs.finishRun(id, "cancelled", 1, claimOf(id))).toBe(true);
    expect(await answerApproval(id, "approval-2", true)).toBe("not waiting");
  });
});
