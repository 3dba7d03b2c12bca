import { spawnSync } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { tempDataDir } from "../support/app-server";
import { readSse } from "../support/sse";
import { RUN_FINISHING_MS, runAwaitingItsEnd } from "@/lib/events/run-end";

// A new environment object, parsed anew: run-end, imported above, has read the settings of the one before.
process.env = { ...process.env, DATABASE_URL: `file:${path.join(tempDataDir(), "events.db")}` };

let RunChannel: typeof import("@/lib/events/channel").RunChannel;
let conversationEventStream: typeof import("@/lib/events/replay").conversationEventStream;
let db: typeof import("@/lib/db/driver/client").db;
let transaction: typeof import("@/lib/db/driver/client").transaction;
let listEvents: typeof import("@/lib/db/queries/events").listEvents;
let appendEvents: typeof import("@/lib/db/queries/events").appendEvents;
let packing: typeof import("@/lib/db/queries/event-packing");

beforeAll(async () => {
  const migrate = spawnSync("node", ["scripts/migrate.mjs"], { env: process.env, encoding: "utf8" });
  expect(migrate.status, migrate.stderr).toBe(0);
  ({ RunChannel } = await import("@/lib/events/channel"));
  ({ conversationEventStream } = await import("@/lib/events/replay"));
  ({ db, transaction } = await import("@/lib/db/driver/client"));
  ({ listEvents, appendEvents } = await import("@/lib/db/queries/events"));
  packing = await import("@/lib/db/queries/event-packing");
});

async function conversation() {
  return db.conversation.create({ data: { ownerId: "owner" } });
}

describe("the event log", () => {
  it("numbers events from where the log ends, hands them to subscribers at once, and stores them all in order", async () => {
    const { id } = await conversation();
    const channel = new RunChannel(id, "run-1");
    channel.begin(1);
    const seen: number[] = [];
    channel.subscribe(
      0,
      (event) => seen.push(event.seq),
      () => {},
    );
    for (let i = 0; i < 1200; i++) channel.emit({ type: "text_delta", step: 1, delta: `d${i}` });
    expect(seen).toEqual(Array.from({ length: 1200 }, (_, i) => i + 1));
    await channel.end();

    const stored = await listEvents(id);
    expect(stored).toEqual(channel.events);
    expect(stored[41].event).toEqual({
      type: "text_delta",
      step: 1,
      delta: "d41",
      runId: "run-1",
      at: channel.events[41].event.at,
    });
    // Every event has its time, deltas packed in one row too, on the clock the instances share.
    expect(stored.every(({ event }) => Math.abs(event.at - Date.now()) < 60_000)).toBe(true);
    // consecutive deltas are stored packed, a few rows for 1200 events
    expect(await db.event.count({ where: { conversationId: id } })).toBeLessThan(20);
    expect(await listEvents(id, 600, 603)).toEqual(channel.events.slice(600, 602));
  });

  it("tells followers when the run has ended, after its events are stored", async () => {
    const { id } = await conversation();
    const channel = new RunChannel(id, "run-2");
    channel.begin(1);
    let ended = false;
    channel.subscribe(
      0,
      () => {},
      async () => {
        ended = true;
        expect(await listEvents(id)).toHaveLength(2);
      },
    );
    channel.emit({ type: "step_started", step: 1 });
    channel.emit({ type: "run_finished", status: "completed", steps: 1 });
    await channel.end();
    expect(ended).toBe(true);
  });

  it("replays stored events, then the live run's, each once and in order, however they interleave", async () => {
    const { id } = await conversation();
    const earlier = new RunChannel(id, "run-a");
    earlier.begin(1);
    for (let i = 0; i < 10; i++) earlier.emit({ type: "text_delta", step: 1, delta: String(i) });
    await earlier.end();

    const live = new RunChannel(id, "run-b");
    live.begin(11);
    for (let i = 0; i < 5; i++) live.emit({ type: "text_delta", step: 1, delta: `live${i}` });
    const response = conversationEventStream(id, { after: 3 }, { live });
    // more events arrive while the stream reads the database
    for (let i = 5; i < 8; i++) live.emit({ type: "text_delta", step: 1, delta: `live${i}` });
    setTimeout(async () => {
      live.emit({ type: "run_finished", status: "completed", steps: 1 });
      await live.end();
    }, 50);

    const events = await readSse(response);
    expect(events.map((event) => event.id)).toEqual(Array.from({ length: 16 }, (_, i) => i + 4));
    expect(events.at(-1)!.data.type).toBe("run_finished");
  });

  describe("a client that resumes with the segment it saw last", () => {
    /**
     * A run that instance A began (run_started at 1, segment "on-A") and streamed, storing events 1-5 only before it
     * died; instance B took it over and numbered its own events from 6 (run_resumed, "on-B"). A's client saw A's
     * events up to 8.
     */
    async function takenOverLog({ finished = true } = {}) {
      const { id } = await conversation();
      const onA = new RunChannel(id, "run-taken");
      onA.begin(1);
      onA.emit({ type: "run_started", messageId: "m", model: "scripted", segment: "on-A" });
      onA.emit({ type: "step_started", step: 1 });
      for (const delta of ["a", "b", "c"]) onA.emit({ type: "text_delta", step: 1, delta });
      await onA.end();
      const onB = new RunChannel(id, "run-taken");
      onB.begin(6);
      const continueOnB = async () => {
        onB.emit({ type: "run_resumed", step: 0, message: "taken over", segment: "on-B" });
        onB.emit({ type: "step_started", step: 1 });
        for (const delta of ["x", "y", "z"]) onB.emit({ type: "text_delta", step: 1, delta });
        onB.emit({ type: "run_finished", status: "completed", steps: 1 });
        await onB.end();
      };
      if (finished) await continueOnB();
      return { id, onB, continueOnB };
    }

    it("is told to read the log again when events it saw past the stored log were an instance's that died", async () => {
      const { id } = await takenOverLog();
      const events = await readSse(conversationEventStream(id, { after: 8, segment: { id: 1, token: "on-A" } }));
      expect(events).toEqual([expect.objectContaining({ id: 0, data: expect.objectContaining({ type: "resync" }) })]);
      // A client of before segment tokens names the segment by its id only.
      expect(await readSse(conversationEventStream(id, { after: 8, segment: { id: 1 } }))).toEqual(events);
    });

    it("is told so when the segment it saw began at the id where another one is stored", async () => {
      // A third instance, C, took the run over from A's stored events too, showed its run_resumed at 6 and more up
      // to 8, and died before storing any of it: B's segment, stored, begins at the same id.
      const { id } = await takenOverLog();
      const events = await readSse(conversationEventStream(id, { after: 8, segment: { id: 6, token: "on-C" } }));
      expect(events).toEqual([expect.objectContaining({ id: 0, data: expect.objectContaining({ type: "resync" }) })]);
    });

    it("resumes after its last id when it saw the segment that wrote them, or had not reached the takeover", async () => {
      const { id } = await takenOverLog();
      const followedB = await readSse(conversationEventStream(id, { after: 8, segment: { id: 6, token: "on-B" } }));
      expect(followedB.map((event) => event.id)).toEqual([9, 10, 11]);
      const behind = await readSse(conversationEventStream(id, { after: 4, segment: { id: 1, token: "on-A" } }));
      expect(behind.map((event) => event.id)).toEqual([5, 6, 7, 8, 9, 10, 11]);
      expect(behind[1].data.type).toBe("run_resumed");
    });

    it("is told so by the instance that runs the run now, and when the takeover comes after it reconnected", async () => {
      const { id, onB, continueOnB } = await takenOverLog({ finished: false });
      // Reconnected to B, which executes the run: the channel's own events show the takeover.
      const onChannel = conversationEventStream(id, { after: 8, segment: { id: 1, token: "on-A" } }, { live: onB });
      await continueOnB();
      expect(await readSse(onChannel)).toEqual([
        expect.objectContaining({ id: 0, data: expect.objectContaining({ type: "resync" }) }),
      ]);

      // Reconnected to an instance that follows from the store, before the takeover was stored.
      const second = await takenOverLog({ finished: false });
      await db.run.create({
        data: {
          id: "run-running-elsewhere",
          conversationId: second.id,
          model: "scripted",
          status: "running",
          instanceId: "instance-elsewhere",
          leaseUntil: new Date(Date.now() + 60_000),
        },
      });
      const fromStore = readSse(conversationEventStream(second.id, { after: 8, segment: { id: 1, token: "on-A" } }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await second.continueOnB();
      expect(await fromStore).toEqual([
        expect.objectContaining({ id: 0, data: expect.objectContaining({ type: "resync" }) }),
      ]);
    });
  });

  it("packs consecutive deltas of one kind and step, and unpacks them exactly", () => {
    const events = [
      { type: "step_started", step: 1 },
      { type: "reasoning_delta", step: 1, delta: "think" },
      { type: "reasoning_delta", step: 1, delta: "ing" },
      { type: "text_delta", step: 1, delta: "a" },
      { type: "text_delta", step: 1, delta: "b" },
      { type: "tool_call", step: 1, callId: "c", name: "calculate", input: { expression: "1" } },
      { type: "text_delta", step: 2, delta: "c" },
      { type: "text_delta", step: 3, delta: "d" },
    ].map((event, index) => ({ seq: index + 10, event: { ...event, runId: "r", at: 1_000 + index } as never }));
    const rows = packing.packEvents(events);
    expect(rows.map((row) => [row.seq, row.lastSeq])).toEqual([
      [10, 10],
      [11, 12],
      [13, 14],
      [15, 15],
      [16, 16],
      [17, 17],
    ]);
    expect(rows.flatMap((row) => packing.unpackRow(row, 0))).toEqual(events);
  });

  it("keeps a signed or redacted thinking delta in a row of its own, so its signature survives the log", () => {
    const events = [
      { type: "reasoning_delta", step: 1, delta: "I will " },
      { type: "reasoning_delta", step: 1, delta: "add." },
      { type: "reasoning_delta", step: 1, delta: "", signature: "sig-1" },
      { type: "reasoning_delta", step: 1, delta: "", redacted: "ENCRYPTED" },
      { type: "reasoning_delta", step: 1, delta: "More." },
    ].map((event, index) => ({ seq: index + 1, event: { ...event, runId: "r", at: 1_000 + index } as never }));
    const rows = packing.packEvents(events);
    expect(rows.map((row) => [row.seq, row.lastSeq])).toEqual([
      [1, 2],
      [3, 3],
      [4, 4],
      [5, 5],
    ]);
    expect(rows.flatMap((row) => packing.unpackRow(row, 0))).toEqual(events);
  });

  it("reads a registered tool stored before `id` meant the tool as today's shape: `id` the tool, `versionId` the version, its name and description at the top level too", () => {
    const tool = { name: "double", description: "Doubles", parametersSchema: {}, code: "", version: 2 };
    const before = {
      type: "tool_registered",
      step: 1,
      callId: "c1",
      runId: "r1",
      at: 5,
      tool: { ...tool, id: "v2", toolId: "t" },
    };
    const [{ event }] = packing.unpackRow({ seq: 3, lastSeq: 3, data: JSON.stringify(before) }, 0);
    const today = {
      ...before,
      tool: { ...tool, id: "t", versionId: "v2" },
      tool_name: "double",
      description: "Doubles",
    };
    expect(event).toEqual(today);
    // Today's shape is read as it is.
    expect(packing.unpackRow({ seq: 3, lastSeq: 3, data: JSON.stringify(today) }, 0)[0].event).toEqual(today);
  });

  it("opens with a comment (its headers go out at once), then formats each message with id, event and data", async () => {
    const { id } = await conversation();
    const channel = new RunChannel(id, "run-c");
    channel.begin(1);
    channel.emit({ type: "error", message: "line one\nline two", code: "x" });
    await channel.end();
    const text = await conversationEventStream(id, { after: 0 }).text();
    const { at } = channel.events[0].event;
    expect(text).toBe(
      `: connected\n\nid: 1\nevent: error\ndata: ${JSON.stringify({ type: "error", message: "line one\nline two", code: "x", runId: "run-c", at })}\n\n`,
    );
  });

  it("keeps what runs stored while another request's transaction was open, when that transaction rolls back", async () => {
    // SQLite has one connection: a statement sent while a transaction is open ran inside it and was rolled back
    // with it, although its caller had been told it was stored.
    const { id } = await conversation();
    const channel = new RunChannel(id, "run-t");
    channel.begin(1);
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const failed = transaction(async (tx) => {
      await tx.conversation.create({ data: { ownerId: "rolled-back" } });
      opened();
      await new Promise((resolve) => setTimeout(resolve, 100));
      throw new Error("the transaction gives up");
    }).catch((error: Error) => error.message);
    await open;
    channel.emit({ type: "text_delta", step: 1, delta: "kept" });
    const other = db.conversation.create({ data: { ownerId: "outside" } });
    // Both are sent while the transaction is open (the channel's writer gathers for a few ms).
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await failed).toBe("the transaction gives up");
    await channel.end();
    const { id: otherId } = await other;

    expect(await listEvents(id)).toEqual(channel.events);
    expect(await db.conversation.findUnique({ where: { id: otherId } })).not.toBeNull();
    expect(await db.conversation.count({ where: { ownerId: "rolled-back" } })).toBe(0);
  });

  it("stores each gathered batch in one statement, so that a run whose rows are refused never fails the others'", async () => {
    // Three runs' rows gathered in one turn, more than one INSERT takes: when the second statement was refused
    // (a row of the third run), the batch was stored again run by run, and the rows the first statement had
    // stored were refused as duplicates: the other runs' events were reported as not stored.
    const runs = await Promise.all(
      ["run-a", "run-b", "run-x"].map(async (runId) => ({ runId, conversationId: (await conversation()).id })),
    );
    const broken = runs[2];
    await appendEvents([
      {
        conversationId: broken.conversationId,
        seq: 350,
        lastSeq: 350,
        runId: "earlier",
        type: "step_started",
        data: "{}",
      },
    ]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const channels = runs.map(({ conversationId, runId }) => {
        const channel = new RunChannel(conversationId, runId);
        channel.begin(1);
        // Not deltas, so not packed: a row each.
        for (let step = 1; step <= 400; step++) channel.emit({ type: "step_started", step });
        return channel;
      });
      await Promise.all(channels.map((channel) => channel.end()));

      for (const channel of channels.slice(0, 2))
        expect(await listEvents(channel.conversationId)).toEqual(channel.events);
      const reported = errors.mock.calls.map((call) => String(call[0]));
      expect(reported.filter((message) => message.includes("run-a") || message.includes("run-b"))).toEqual([]);
      expect(reported.some((message) => message.includes("run-x"))).toBe(true);
    } finally {
      errors.mockRestore();
    }
  });
});

describe("a run whose end is not stored yet", () => {
  const now = new Date("2026-11-25T12:00:00Z");
  const finished = (msAgo: number) => new Date(now.getTime() - msAgo);
  it("is followed for its run_finished while its row finished within the grace, and over after it", () => {
    expect(runAwaitingItsEnd({ type: "text_delta", runId: "r", finishedAt: finished(100) }, now)).toBe("r");
    expect(
      runAwaitingItsEnd({ type: "text_delta", runId: "r", finishedAt: finished(RUN_FINISHING_MS + 100) }, now),
    ).toBeUndefined();
    expect(runAwaitingItsEnd({ type: "run_finished", runId: "r", finishedAt: finished(100) }, now)).toBeUndefined();
    // A newer run ended its claim: its end, should it come, is refused.
    expect(
      runAwaitingItsEnd({ type: "text_delta", runId: "r", finishedAt: finished(100), claimEnded: true }, now),
    ).toBeUndefined();
    // Not finished: running (found as such), or nothing to wait for.
    expect(runAwaitingItsEnd({ type: "text_delta", runId: "r", finishedAt: null }, now)).toBeUndefined();
    expect(runAwaitingItsEnd(undefined, now)).toBeUndefined();
  });
});
