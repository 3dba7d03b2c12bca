// Several instances on one PostgreSQL database, as behind a load balancer: the claim, live follow, Stop and the
// takeover of a dead instance's runs all go through the database. (The `postgresql` project runs this file.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, slowInserts, slowUpdates, sqlClient } from "../support/database";
import { ModelServer, type ScriptedCall } from "../support/model-server";
import { readNotingFirst, readSse, watchSse, type SseMessage } from "../support/sse";
import { TcpProxy } from "../support/tcp-proxy";

const LEASE_MS = 2_000;
/** run_code's input for a call that is still running when the test acts. */
const SPIN = { code: "const end = Date.now() + 4000; while (Date.now() < end) {} 'spun'" };

/** The built-in default profile, and one that asks before calculating. */
const CONFIG = `profiles:
  - name: default
    tools: [register_tool, calculate, run_code]
  - name: careful
    tools: [calculate]
    approval: [calculate]
default_profile: default
`;
const configFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-config-")), "toolsmith.config.yaml");
fs.writeFileSync(configFile, CONFIG);

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
/** A statement whose connection went silent fails this soon (the default, 30 s, is longer than a test). */
const QUERY_TIMEOUT_MS = 5_000;
const instance = (url = databaseUrl, env: Record<string, string> = {}) =>
  scriptedApp(
    model.url,
    {
      TOOLSMITH_LEASE_MS: String(LEASE_MS),
      TOOLSMITH_DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      TOOLSMITH_MAX_STEPS: "6",
      TOOLSMITH_CONFIG: configFile,
      ...env,
    },
    url,
  );
let a: AppServer;
let b: AppServer;
/** One person, whose requests reach either instance. */
let onA: Api;
let onB: Api;

beforeAll(async () => {
  await model.start();
  a = instance();
  b = instance();
  await a.start();
  await b.start();
  onA = new Api(a.url);
  await onA.identity();
  onB = new Api(b.url);
  onB.cookie = onA.cookie;
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await model.stop();
});

/** Ids run 1, 2, 3 … without a gap or a repeat, and nothing follows run_finished. */
function expectWholeLog(events: SseMessage[]) {
  expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
  expect(events.at(-1)!.data.type).toBe("run_finished");
  expect(ofType(events, "run_finished")).toHaveLength(1);
}

describe("two instances on one PostgreSQL", () => {
  it("follow a run from the other instance, by its owner and by a share link: the same events, in order, to the end; a second message there is refused", async () => {
    const prompt = "Stream slowly on A.";
    model.script(prompt, [{ text: "word ".repeat(60), chunkSize: 5, delayMs: 15 }]);
    const { id } = await onA.createConversation();
    const { token } = await (await onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const streamOnA = readSse(await onA.send(id, prompt));
    const firstDelta = await readSse(await onB.events(id), (message) => message.data.type === "text_delta");
    expect(firstDelta[0].data.type).toBe("run_started");
    // a stranger with the share link, on B
    const sharedOnB = readSse(await fetch(`${b.url}/api/share/${token}/events`));

    const conflict = await onB.send(id, "A second message, on B.");
    expect(conflict.status).toBe(409);

    const followedOnB = await readSse(await onB.events(id));
    const seenOnA = await streamOnA;
    expectWholeLog(followedOnB);
    expect(followedOnB).toEqual(seenOnA);
    expect(await sharedOnB).toEqual(seenOnA);
    // resuming on B from the middle gives the rest
    const rest = await readSse(await onB.events(id, 10));
    expect(rest).toEqual(seenOnA.slice(10));
    expect((await onB.conversation(id)).activeRunId).toBeNull();
  });

  /** Stop sent on A while the run's write that `slow` holds up is in progress; the events the run's stream showed. */
  async function stopWhileStoring(
    prompt: string,
    calls: ScriptedCall[],
    slow: Omit<Parameters<typeof slowInserts>[1], "conversationId">,
    profile?: string,
  ) {
    model.script(prompt, [{ toolCalls: calls }, { text: "Never." }]);
    const { id } = await onA.createConversation(profile);
    const slowWrite = await slowInserts(databaseUrl, { ...slow, conversationId: id });
    try {
      const events = readSse(await onA.send(id, prompt));
      await slowWrite.inProgress();
      expect((await onA.fetch(`/api/conversations/${id}/cancel`, { method: "POST" })).status).toBe(202);
      const shown = await events;
      expect(shown.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
      return shown;
    } finally {
      await slowWrite.remove();
    }
  }

  it("makes no tool call after Stop, even one the model asked for in the same step as a tool being registered", async () => {
    const shout = {
      name: "shout",
      description: "Upper-case a text.",
      parameters_schema: { type: "object" },
      code: "function run({ text }) { return String(text).toUpperCase(); }",
    };
    // Stop comes while the tool is being stored; the calculation waits for it (registrations change the tool set).
    const shown = await stopWhileStoring(
      "Register a tool, slowly, and calculate in the same step.",
      [
        { name: "register_tool", args: shout },
        { name: "calculate", args: { expression: "6 * 7" } },
      ],
      {
        table: "Tool",
        seconds: 1.5,
      },
    );
    expect(ofType(shown, "tool_call").map(({ name }) => name)).toEqual(["register_tool"]);
  });

  /** The record of a tool call held up, within the live pool's statement timeout (a quarter of the lease), past which the write is taken for lost and sent again. */
  const SLOW_CALL_RECORD = { table: "Event", seconds: 0.4, when: `NEW."type" = 'tool_call'` };

  it("makes no tool call after Stop that came while the call was being stored: none asks for an approval that no one would answer", async () => {
    const shown = await stopWhileStoring(
      "Calculate carefully, while the record of the call is stored slowly and Stop comes.",
      [{ name: "calculate", args: { expression: "6 * 7" } }],
      SLOW_CALL_RECORD,
      "careful",
    );
    expect(ofType(shown, "approval_requested")).toHaveLength(0);
    expect(ofType(shown, "tool_result")).toHaveLength(0);
  });

  it("stores a tool call before the tool acts: an instance that takes the run over knows it may have", async () => {
    const prompt = "Calculate, while the record of the call is stored slowly.";
    model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await onA.createConversation();
    const slowRecord = await slowInserts(databaseUrl, { ...SLOW_CALL_RECORD, conversationId: id });
    try {
      const { shown, end } = watchSse(await onA.send(id, prompt));
      await slowRecord.inProgress();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ofType(shown, "tool_call")).toHaveLength(1);
      expect(ofType(shown, "tool_result")).toHaveLength(0);
      expect(await end).toBe("ended");
      expect(ofType(shown, "tool_result")).toMatchObject([{ ok: true, output: 42 }]);
    } finally {
      await slowRecord.remove();
    }
  });

  it("cuts the streams open on a share link on both instances when the link is revoked on one", async () => {
    const prompt = "Stream slowly while the link is revoked.";
    model.script(prompt, [{ deltas: 300, numbered: true, delayMs: 10 }]);
    const { id } = await onA.createConversation();
    const { token } = await (await onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const own = readSse(await onA.send(id, prompt));
    const shared = await Promise.all(
      [a, b].map(async (server) => watchSse(await fetch(`${server.url}/api/share/${token}/events`))),
    );
    for (const stream of shared)
      await expect.poll(() => ofType(stream.shown, "text_delta").length, { timeout: 5_000 }).toBeGreaterThan(0);

    expect((await onA.fetch(`/api/conversations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    const revokedAt = performance.now();
    expect(await Promise.all(shared.map((stream) => stream.end))).toEqual(["cut off", "cut off"]);
    expect(performance.now() - revokedAt).toBeLessThan(1_000);
    expect(ofType(await own, "text_delta")).toHaveLength(300);
  });

  it("stops a run on A when Stop reaches B, within half a second", async () => {
    const prompt = "Spin on A until stopped.";
    model.script(prompt, [{ toolCalls: [{ name: "run_code", args: SPIN }] }, { text: "Never." }]);
    const { id } = await onA.createConversation();
    const onAEvents = readSse(await onA.send(id, prompt), (message) => message.data.type === "run_finished");
    await expect
      .poll(
        async () =>
          ofType(await readSse(await onB.events(id), (message) => message.data.type === "tool_call"), "tool_call")
            .length,
        { timeout: 10_000 },
      )
      .toBe(1);
    const stopped = performance.now();
    const cancel = await onB.fetch(`/api/conversations/${id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(202);
    const events = await onAEvents;
    expect(performance.now() - stopped).toBeLessThan(500);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
  });

  /** A run on A of the profile that asks before calculating, waiting for an answer, as B sees it. */
  async function approvalAskedOnA(prompt: string) {
    model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await onA.createConversation("careful");
    const onAEvents = readSse(await onA.send(id, prompt));
    const asked = await readSse(await onB.events(id), (message) => message.data.type === "approval_requested");
    return { id, onAEvents, approvalId: String(asked.at(-1)!.data.approvalId) };
  }

  it("takes the answer to an approval on B to the run waiting on A", async () => {
    const { id, onAEvents, approvalId } = await approvalAskedOnA("Calculate on A, carefully.");
    const answer = (approved: boolean) => onB.answerApproval(id, approvalId, approved);
    expect((await answer(true)).status).toBe(200);
    const events = await onAEvents;
    expect(ofType(events, "approval_resolved")).toEqual([expect.objectContaining({ approvalId, approved: true })]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({ ok: true, output: 42 });
    // Sent again once the run is over: taken as it was; the other answer is refused.
    expect((await answer(true)).status).toBe(200);
    expect((await answer(false)).status).toBe(409);
  });

  it("gets an approval answered on B to the run on A while A's listening connection reconnects, and says so only once A confirms it", async () => {
    const { id, onAEvents, approvalId } = await approvalAskedOnA("Calculate on A, carefully, while A hears nothing.");
    // Every instance's listening connection is cut: each takes a second to connect again, and misses what is said meanwhile.
    const database = await sqlClient(databaseUrl);
    const [{ cut }] = await database.query<{ cut: string }>(
      `SELECT count(pg_terminate_backend("pid")) AS "cut" FROM pg_stat_activity WHERE "application_name" = 'toolsmith-listener' AND "datname" = current_database()`,
    );
    await database.close();
    // A's and B's at least (an instance of another test may still be connected).
    expect(Number(cut)).toBeGreaterThanOrEqual(2);
    const answered = await onB.answerApproval(id, approvalId, true);
    expect(answered.status).toBe(200);
    // Confirmed means stored: the run on A has it.
    expect(
      ofType(
        await readSse(await onB.events(id), (message) => message.data.type === "approval_resolved"),
        "approval_resolved",
      ),
    ).toHaveLength(1);
    const events = await onAEvents;
    expect(ofType(events, "tool_result")[0]).toMatchObject({ ok: true, output: 42 });
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("answers 503, asking to send it again, to an approval the instance running the call never confirms", async () => {
    // A run leased to an instance that hears nothing, waiting for an approval.
    const { id } = await onA.createConversation("careful");
    const runId = `silent-${id}`;
    const approvalId = "approval-no-one-hears";
    const database = await sqlClient(databaseUrl);
    try {
      await database.query(
        `INSERT INTO "Run" ("id", "conversationId", "status", "model", "steps", "createdAt", "instanceId", "claim", "leaseUntil", "cancelRequested") VALUES (?, ?, 'running', 'scripted', 0, now(), 'deaf', ?, now() + interval '1 hour', false)`,
        runId,
        id,
        runId,
      );
      const request = {
        type: "approval_requested",
        step: 1,
        callId: "call-1",
        approvalId,
        tool: "calculate",
        input: { expression: "1 + 1" },
        runId,
      };
      await database.query(
        `INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") VALUES (?, 1, 1, ?, 'approval_requested', ?, now())`,
        id,
        runId,
        JSON.stringify(request),
      );
      const sentAt = performance.now();
      const answer = await onB.answerApproval(id, approvalId, true);
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("1");
      expect((await answer.json()).error.message).toMatch(/did not confirm the answer; send it again/);
      expect(performance.now() - sentAt).toBeGreaterThan(4_000);
      // Once the run was taken over (which ends the step the call was in), the call waits no more: 409 at once.
      const resumed = { type: "run_resumed", runId };
      await database.query(
        `INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") VALUES (?, 2, 2, ?, 'run_resumed', ?, now())`,
        id,
        runId,
        JSON.stringify(resumed),
      );
      expect((await onB.answerApproval(id, approvalId, true)).status).toBe(409);
    } finally {
      await database.query(`UPDATE "Run" SET "status" = 'error', "leaseUntil" = NULL WHERE "id" = ?`, runId);
      await database.close();
    }
  });

  it("stops a run whose row another instance took before A noticed: nothing more of A's is stored, and A's client reads the log again", async () => {
    const prompt = "Stream on A, which loses the run without noticing.";
    model.script(prompt, [{ text: "lost ".repeat(150), chunkSize: 2, delayMs: 15 }]);
    const { id } = await onA.createConversation();
    const { shown, end } = watchSse(await onA.send(id, prompt));
    await expect.poll(() => ofType(shown, "text_delta").length).toBeGreaterThan(3);
    const database = await sqlClient(databaseUrl);
    const lastStored = `SELECT max("lastSeq") AS "last" FROM "Event" WHERE "conversationId" = '${id}'`;
    try {
      // What a takeover writes, sooner than A's heartbeat (a fifth of the lease) can notice: another instance's
      // name, claim and lease, and, in the same transaction, where the log ends (as the new owner reads it). A write of
      // A's in progress is stored first; the next ones wait for the transaction.
      const [{ last: takenOverAt }] = await database.query<{ last: number }>(
        `UPDATE "Run" SET "instanceId" = 'instance-elsewhere', "claim" = 'claim-elsewhere-${id}', "leaseUntil" = "leaseUntil" + INTERVAL '1 minute' WHERE "conversationId" = '${id}' AND "status" = 'running'; ${lastStored}`,
      );
      expect(await end).toBe("ended");
      expect(shown.at(-1)).toMatchObject({ id: 0, data: { type: "resync" } });
      // Past A's next heartbeat: A stored nothing after the takeover, and left the run to the other instance.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      expect((await database.query<{ last: number }>(lastStored))[0].last).toBe(takenOverAt);
      expect(await database.query(`SELECT "status", "instanceId" FROM "Run" WHERE "conversationId" = ?`, id)).toEqual([
        { status: "running", instanceId: "instance-elsewhere" },
      ]);
    } finally {
      await database.query(
        `UPDATE "Run" SET "status" = 'cancelled', "leaseUntil" = NULL WHERE "conversationId" = ?`,
        id,
      );
      await database.close();
    }
  });

  it("stops a run at once when its events are refused, whatever its heartbeat says: it does not stream or call tools twice", async () => {
    const prompt = "Stream on A, whose writes are refused.";
    model.script(prompt, [{ text: "twice ".repeat(150), chunkSize: 2, delayMs: 15 }]);
    const { id } = await onA.createConversation();
    const { shown } = watchSse(await onA.send(id, prompt));
    await expect.poll(() => ofType(shown, "text_delta").length).toBeGreaterThan(3);
    const database = await sqlClient(databaseUrl);
    try {
      // A takeover by A itself (a new claim, the same instance): A's heartbeat still renews the lease, so only the
      // refusal of its next event write tells the run it was taken over.
      await database.query(
        `UPDATE "Run" SET "claim" = 'claim-of-a-takeover-${id}' WHERE "conversationId" = ? AND "status" = 'running'`,
        id,
      );
      const takenOverAt = performance.now();
      // The model request is closed within a write or two, not at the answer's end (seven seconds on).
      const closed = () => model.answerSpansFor(prompt)[0].closedAt;
      await expect.poll(closed, { timeout: 10_000 }).toBeLessThan(Number.POSITIVE_INFINITY);
      expect(closed() - takenOverAt).toBeLessThan(1_000);
    } finally {
      await database.query(
        `UPDATE "Run" SET "status" = 'cancelled', "leaseUntil" = NULL WHERE "conversationId" = ?`,
        id,
      );
      await database.close();
    }
  });

  it("lets go of a run that is storing its end when another instance takes it over: Stop on A then reaches the run there", async () => {
    const prompt = "Answer on A, whose finish is held up.";
    model.script(prompt, [{ text: "Held up." }]);
    const { id } = await onA.createConversation();
    // The statement that stores the run's end, held up on its way (as on a connection that went silent).
    const slowFinish = await slowUpdates(databaseUrl, { table: "Run", text: '"finishedAt"', seconds: 4 });
    const database = await sqlClient(databaseUrl);
    try {
      watchSse(await onA.send(id, prompt));
      await slowFinish.inProgress();
      await database.query(
        `UPDATE "Run" SET "instanceId" = 'instance-elsewhere', "claim" = 'claim-elsewhere-${id}', "leaseUntil" = "leaseUntil" + INTERVAL '1 minute' WHERE "conversationId" = '${id}' AND "status" = 'running'`,
      );
      // Past A's next heartbeat; its finish still waits. Stop on A goes to the run's instance, through the database.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      expect((await onA.fetch(`/api/conversations/${id}/cancel`, { method: "POST" })).status).toBe(202);
      expect(
        await database.query(`SELECT "status", "cancelRequested" FROM "Run" WHERE "conversationId" = ?`, id),
      ).toEqual([{ status: "running", cancelRequested: true }]);
    } finally {
      await slowFinish.remove();
      await database.query(
        `UPDATE "Run" SET "status" = 'cancelled', "leaseUntil" = NULL WHERE "conversationId" = ?`,
        id,
      );
      await database.close();
    }
  });

  /**
   * A run on A whose answer takes `seconds` to store, while its row says it finished (so B may claim the
   * conversation, and B's followers find no run running), and what `onB` does on B meanwhile, with the conversation's
   * id. What A's stream showed, and what `onB` resolved with.
   */
  async function whileAStoresItsEnd<Result>(seconds: number, onB: (id: string) => Promise<Result>) {
    const { id } = await onA.createConversation();
    const prompt = `Answer on A, stored in ${seconds} s, in ${id}.`;
    model.script(prompt, [{ text: "Ending slowly." }]);
    const slowAnswer = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds,
      when: `NEW."role" = 'assistant'`,
    });
    try {
      const streamOnA = watchSse(await onA.send(id, prompt));
      await slowAnswer.inProgress();
      const result = await onB(id);
      await streamOnA.end;
      return { id, seenOnA: streamOnA.shown, result };
    } finally {
      await slowAnswer.remove();
    }
  }

  it("follows a run from B to its end when B is reached after the run's row is finished and before its run_finished is stored", async () => {
    const { seenOnA, result } = await whileAStoresItsEnd(1.5, async (id) => {
      const { token } = await (await onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
      return Promise.all([
        readSse(await onB.events(id)),
        readSse(await fetch(`${b.url}/api/share/${token}/events`)),
        onB.conversation(id),
      ]);
    });
    const [followedOnB, sharedOnB, viewOnB] = result;
    expectWholeLog(seenOnA);
    expect(followedOnB).toEqual(seenOnA);
    expect(sharedOnB).toEqual(seenOnA);
    // A page opened on B then follows the run for its end.
    expect(viewOnB.activeRunId).toBe(seenOnA[0].data.runId);
  });

  it("follows a run from B to its end when the run's end takes longer to store than a write normally does", async () => {
    // Within the statement timeout (5 s here), which bounds the time the answer can take to store.
    const { seenOnA, result: followedOnB } = await whileAStoresItsEnd(4.5, async (id) => readSse(await onB.events(id)));
    expectWholeLog(seenOnA);
    expect(followedOnB).toEqual(seenOnA);
  });

  /** The next message, sent on B while A stores its run's end: B's run, and the log once both have ended. */
  async function nextMessageOnBWhileAStoresItsEnd(seconds: number) {
    const {
      id,
      seenOnA,
      result: seenOnB,
    } = await whileAStoresItsEnd(seconds, async (id) => {
      const next = `The next message, on B, in ${id}.`;
      model.script(next, [{ text: "Next." }]);
      const sentOnB = await onB.send(id, next);
      expect(sentOnB.status).toBe(200);
      return readSse(sentOnB);
    });
    expect(seenOnB.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    return { seenOnA, seenOnB, log: await readSse(await onA.events(id)) };
  }

  it("begins a run sent on B after the end of A's run, which A stores after its row says it finished", async () => {
    const { seenOnA, seenOnB, log } = await nextMessageOnBWhileAStoresItsEnd(1.5);
    expectWholeLog(seenOnA);
    expect(seenOnB[0].id).toBe(seenOnA.length + 1);
    // Both runs stored whole, one after the other.
    expect(log).toEqual([...seenOnA, ...seenOnB]);
  });

  it("ends the stream of a follower that had all of a run's stored events when a newer run begins, the run's end lost", async () => {
    const prompt = "Answer on A, whose run_finished is refused.";
    model.script(prompt, [{ text: "Ended, unstored." }]);
    const { id } = await onA.createConversation();
    const lostEnd = await slowInserts(databaseUrl, {
      table: "Event",
      conversationId: id,
      seconds: 0,
      when: `NEW."type" = 'run_finished'`,
      thenFail: true,
    });
    let runOnA: string;
    try {
      runOnA = (await readSse(await onA.send(id, prompt)))[0].data.runId as string;
    } finally {
      await lostEnd.remove();
    }
    // A client that reconnects with the last id it has, the last one stored, and no segment (as an EventSource
    // does). Its response begins with its first event: it is not waited for, but it has begun, before the next
    // message is sent (else it would follow the run of that message).
    const following = onB.events(id, (await onB.conversation(id)).lastEventId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = "The next message, on A, while a follower on B waits for the lost end.";
    model.script(next, [{ text: "Next." }]);
    const seenOnA = await readSse(await onA.send(id, next));
    expect(seenOnA.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    // The stream ended with the run it followed, before the newer one's events.
    const followed = await readSse(await following);
    expect(followed.map((event) => event.data.runId)).toEqual(followed.map(() => runOnA));
  });

  it("ends the claim of A's finished run when its end is not stored within the grace: its late write is refused, never mixed into B's run", async () => {
    // Past the grace B waits for (2 s), and past B's whole run.
    const { seenOnB, log } = await nextMessageOnBWhileAStoresItsEnd(4);
    // A's run_finished came after B's run began: refused. The log is A's run up to there, then B's run.
    expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index + 1));
    expect(log.slice(-seenOnB.length)).toEqual(seenOnB);
    expect(ofType(log, "run_finished")).toEqual([seenOnB.at(-1)!.data]);
  });

  it("ends the stream of a follower that came while a run was starting, when the run cannot start", async () => {
    const { id } = await onA.createConversation();
    const failingStart = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds: 1,
      when: `NEW."role" = 'user'`,
      thenFail: true,
    });
    try {
      const sent = onA.send(id, "A message that is never stored.");
      await failingStart.inProgress();
      const follower = readSse(await onA.events(id));
      expect((await sent).status).toBe(500);
      const ended = await Promise.race([
        follower.then(() => "ended"),
        new Promise((resolve) => setTimeout(() => resolve("still open"), 3_000)),
      ]);
      expect(ended).toBe("ended");
    } finally {
      await failingStart.remove();
    }
  });

  it("calls a tool registered through A in the next turn through B", async () => {
    const { id } = await onA.createConversation();
    model.script("Make a doubler on A.", [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "doubler",
              description: "Doubles n.",
              parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
              code: "function run({ n }) { return n * 2; }",
            },
          },
        ],
      },
      { text: "Made." },
    ]);
    expect(ofType(await onA.run(id, "Make a doubler on A."), "tool_registered")).toHaveLength(1);
    model.script("Use it on B.", [{ toolCalls: [{ name: "doubler", args: { n: 21 } }] }, { text: "42." }]);
    const events = await onB.run(id, "Use it on B.");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "doubler", ok: true, output: 42 });
  });
});

/** A new instance A in place of one that was killed or stopped, for the same person. */
async function replaceA() {
  a = instance();
  await a.start();
  onA = Object.assign(new Api(a.url), { cookie: onB.cookie });
}

describe("an instance that dies mid-run", () => {
  afterEach(replaceA);

  /**
   * Start a run on A, follow it on B, kill A once `until` is seen, and read B's follower to the end; with the time
   * from the kill to the first event of the instance that took the run over.
   */
  async function killDuring(prompt: string, until: (message: SseMessage) => boolean) {
    const { id } = await onA.createConversation();
    void readSse(await onA.send(id, prompt)).catch(() => []);
    await readSse(await onB.events(id), until);
    const follower = readNotingFirst(
      await onB.events(id),
      (message) => message.data.type === "run_resumed" || message.data.code === "instance_lost",
    );
    await a.kill();
    const killed = performance.now();
    const { events, markedAt: tookOver } = await follower;
    return { id, events, tookOverAfter: tookOver - killed };
  }

  it("is taken over by another during a model stream, which resumes the run from its last finished step", async () => {
    const prompt = "Stream long on A, which dies.";
    model.script(prompt, [{ text: "slow ".repeat(150), chunkSize: 5, delayMs: 40 }]);
    const { id, events, tookOverAfter } = await killDuring(prompt, (message) => message.data.type === "text_delta");
    expectWholeLog(events);
    expect(tookOverAfter).toBeLessThan(LEASE_MS + 1_000);
    expect(ofType(events, "run_resumed")).toEqual([expect.objectContaining({ step: 0 })]);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const stored = await onB.conversation(id);
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "slow ".repeat(150) });
    // the whole log, replayed, is what the follower saw
    expect(await readSse(await onB.events(id))).toEqual(events);
  });

  it("is taken over during a tool call, and the run ends with an error saying the tool's effect is unknown", async () => {
    const prompt = "Spin on A, which dies.";
    model.script(prompt, [{ toolCalls: [{ name: "run_code", args: SPIN }] }, { text: "Never." }]);
    const { events, tookOverAfter } = await killDuring(prompt, (message) => message.data.type === "tool_call");
    expectWholeLog(events);
    expect(tookOverAfter).toBeLessThan(LEASE_MS + 1_000);
    // The part of the log B wrote begins a segment, by which a client that saw A's unstored events learns they
    // are not the log's (lib/events/replay.ts).
    const resumedAt = events.findIndex((event) => event.data.type === "run_resumed");
    expect(events[resumedAt].data).toMatchObject({ step: 0, segment: expect.any(String) });
    expect(events[resumedAt + 1].data).toMatchObject({ type: "error", code: "instance_lost" });
    expect(ofType(events, "error")).toEqual([expect.objectContaining({ code: "instance_lost" })]);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "error" });
    const database = await sqlClient(databaseUrl);
    const running = await database.query(`SELECT "id" FROM "Run" WHERE "status" = 'running'`);
    await database.close();
    expect(running).toEqual([]);
  });
});

describe("an instance that starts while runs are left running", () => {
  it("renews the lease of each run it takes over at start-up while it is taking the others over", async () => {
    const ownDatabase = freshDatabaseUrl();
    // Each takeover statement held up a second and a half: within what a lease of six seconds allows (the heartbeat
    // renews a run a period or two after it is taken, and the fence stops one not renewed for two periods less than a
    // lease), and the five of them take longer than a lease.
    const env = { TOOLSMITH_LEASE_MS: "6000" };
    const dying = instance(ownDatabase, env);
    await dying.start();
    const onDying = new Api(dying.url);
    await onDying.identity();
    const prompts = [1, 2, 3, 4, 5].map((n) => `Stream long, run ${n} of an instance that dies before another starts.`);
    for (const prompt of prompts) {
      model.script(prompt, [{ text: "slow ".repeat(200), chunkSize: 5, delayMs: 50 }]);
      const { id } = await onDying.createConversation();
      await readSse(await onDying.send(id, prompt), (message) => message.data.type === "text_delta");
    }
    await dying.kill();
    const database = await sqlClient(ownDatabase);
    // Its leases run out before the next instance starts: it takes the runs over as it starts.
    const leased = async () =>
      Number(
        (
          await database.query<{ n: string }>(
            `SELECT count(*) AS "n" FROM "Run" WHERE "leaseUntil" >= clock_timestamp()`,
          )
        )[0].n,
      );
    await expect.poll(leased, { timeout: 10_000 }).toBe(0);
    const slowTakeovers = await slowUpdates(ownDatabase, { table: "Run", text: 'SET "instanceId"', seconds: 1.5 });
    const starting = instance(ownDatabase, env);
    const started = starting.start();
    try {
      // Runs taken over whose lease has run out while their instance lives: another instance would take them again.
      const expiredSinceTaken = `SELECT count(*) AS "n" FROM "Run" WHERE "status" = 'running' AND "instanceId" <> $1 AND "leaseUntil" < clock_timestamp()`;
      const [{ instanceId: dead }] = await database.query<{ instanceId: string }>(
        `SELECT "instanceId" FROM "Run" WHERE "status" = 'running' LIMIT 1`,
      );
      let expired = 0;
      let taken = 0;
      while (taken < prompts.length) {
        expired = Math.max(expired, Number((await database.query<{ n: string }>(expiredSinceTaken, dead))[0].n));
        taken = Number(
          (
            await database.query<{ n: string }>(
              `SELECT count(*) AS "n" FROM "Run" WHERE "status" = 'running' AND "instanceId" <> $1`,
              dead,
            )
          )[0].n,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Two heartbeats after the last one was taken.
      const until = Date.now() + 2_500;
      while (Date.now() < until) {
        expired = Math.max(expired, Number((await database.query<{ n: string }>(expiredSinceTaken, dead))[0].n));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(expired).toBe(0);
    } finally {
      await slowTakeovers.remove();
      await started.catch(() => {});
      await starting.stop();
      await database.close();
    }
  });
});

describe("instances whose clocks disagree", () => {
  /** Three leases ahead of the others: each of its leases looks three leases longer to them, and theirs over to it. */
  const SKEW_MS = 3 * LEASE_MS;
  /** An instance's settings for a clock SKEW_MS ahead (tests/support/skewed-clock.mjs). */
  const skewedClock = () => ({
    NODE_OPTIONS: `--import ${path.resolve("tests/support/skewed-clock.mjs")}`,
    TOOLSMITH_TEST_CLOCK_SKEW_MS: String(SKEW_MS),
  });
  let ahead: AppServer;
  let onAhead: Api;

  async function startAhead() {
    ahead = instance(databaseUrl, skewedClock());
    await ahead.start();
    onAhead = Object.assign(new Api(ahead.url), { cookie: onA.cookie });
  }

  beforeAll(startAhead);
  afterAll(() => ahead?.stop());

  it("leave a live run where it runs: an instance whose clock is ahead does not take it for dead", async () => {
    const prompt = "Stream on A for a few heartbeats, followed where the clock is ahead.";
    model.script(prompt, [{ text: "tick ".repeat(60), chunkSize: 5, delayMs: 40 }]);
    const { id } = await onA.createConversation();
    const streamOnA = readSse(await onA.send(id, prompt));
    const followed = await readSse(await onAhead.events(id));
    expectWholeLog(followed);
    expect(ofType(followed, "run_resumed")).toEqual([]);
    expect(followed.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    expect(await streamOnA).toEqual(followed);
    expect(model.requestsFor(prompt)).toHaveLength(1);
  });

  it("take over the run of a dead instance whose clock was ahead within the lease and a second", async () => {
    const prompt = "Stream long where the clock is ahead, which dies.";
    model.script(prompt, [{ text: "slow ".repeat(150), chunkSize: 5, delayMs: 40 }]);
    const { id } = await onAhead.createConversation();
    void readSse(await onAhead.send(id, prompt)).catch(() => []);
    await readSse(await onB.events(id), (message) => message.data.type === "text_delta");
    const follower = readNotingFirst(await onB.events(id), (message) => message.data.type === "run_resumed");
    await ahead.kill();
    const killed = performance.now();
    try {
      const { events, markedAt: tookOver } = await follower;
      expectWholeLog(events);
      expect(tookOver - killed).toBeLessThan(LEASE_MS + 1_000);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    } finally {
      await startAhead();
    }
  });

  it("leave a live run where it runs when the clock of an instance following it steps ahead", async () => {
    // Right at start-up, when it reads the database's clock; three leases ahead ten seconds later.
    const stepping = instance(databaseUrl, { ...skewedClock(), TOOLSMITH_TEST_CLOCK_STEP_AFTER_MS: "10000" });
    const spawned = performance.now();
    await stepping.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 10_500 - (performance.now() - spawned)));
      const prompt = "Stream on A for a few heartbeats, followed where the clock stepped ahead.";
      model.script(prompt, [{ text: "tock ".repeat(60), chunkSize: 5, delayMs: 40 }]);
      const { id } = await onA.createConversation();
      const streamOnA = readSse(await onA.send(id, prompt));
      const followed = await readSse(await Object.assign(new Api(stepping.url), { cookie: onA.cookie }).events(id));
      expect(ofType(followed, "run_resumed")).toEqual([]);
      expect(await streamOnA).toEqual(followed);
      expect(model.requestsFor(prompt)).toHaveLength(1);
    } finally {
      await stepping.stop();
    }
  });

  it("keep a conversation's turns in the order they were taken, whichever instance took each", async () => {
    const first = "First turn, where the clock is ahead.";
    const second = "Second turn, on A.";
    model.script(first, [{ text: "One." }]);
    model.script(second, [{ text: "Two." }]);
    const { id } = await onAhead.createConversation();
    await readSse(await onAhead.send(id, first));
    await readSse(await onA.send(id, second));
    // What the model was sent for the second turn: the conversation so far, in order.
    expect(
      model.requests
        .at(-1)!
        .messages.filter((message) => message.role !== "system")
        .map((message) => message.content),
    ).toEqual([first, "One.", second]);
    expect((await onA.conversation(id)).messages.map((message: { content: string }) => message.content)).toEqual([
      first,
      "One.",
      second,
      "Two.",
    ]);
  });
});

describe("an instance that is stopped mid-run (SIGTERM, as a deploy does)", () => {
  afterEach(replaceA);

  it("stores the end of a run that is finishing before it exits", async () => {
    const prompt = "Answer on A, and be stored slowly.";
    model.script(prompt, [{ text: "Ending slowly." }]);
    const { id } = await onA.createConversation();
    // Storing the answer takes a second and a half: A is stopped meanwhile, its run's row already finished.
    const slowAnswer = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds: 1.5,
      when: `NEW."role" = 'assistant'`,
    });
    try {
      void readSse(await onA.send(id, prompt)).catch(() => []);
      await slowAnswer.inProgress();
      await a.stop();
      const events = await readSse(await onB.events(id));
      expectWholeLog(events);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    } finally {
      await slowAnswer.remove();
    }
  });

  it("stores every event it showed and hands the run over at once; the other instance goes on from there", async () => {
    const prompt = "Stream fast on A, which is stopped.";
    // Deltas faster than the event log's batches, so that the instance always holds events it has shown but not stored.
    model.script(prompt, [{ deltas: 400, numbered: true, delayMs: 5 }]);
    const { id } = await onA.createConversation();
    const { shown: seenOnA, end: streamOnA } = watchSse(await onA.send(id, prompt));
    await expect.poll(() => ofType(seenOnA, "text_delta").length).toBeGreaterThan(50);
    const follower = readNotingFirst(await onB.events(id), (message) => message.data.type === "run_resumed");
    const stopped = performance.now();
    await a.stop();
    expect(await streamOnA).toBe("cut off");
    const { events, markedAt: tookOver } = await follower;
    expectWholeLog(events);
    // What A's own client was shown is what the log keeps, id for id.
    expect(events.slice(0, seenOnA.length)).toEqual(seenOnA);
    // Released, not left to run out: well within the lease.
    expect(tookOver - stopped).toBeLessThan(LEASE_MS / 2);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("hands over a run waiting for an approval: no one denied it, and the run ends saying the call's effect is unknown", async () => {
    const prompt = "Calculate on A, carefully, until A stops.";
    model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await onA.createConversation("careful");
    void readSse(await onA.send(id, prompt)).catch(() => []);
    await readSse(await onB.events(id), (message) => message.data.type === "approval_requested");
    const follower = readSse(await onB.events(id));
    const stopped = performance.now();
    await a.stop();
    const events = await follower;
    expect(performance.now() - stopped).toBeLessThan(LEASE_MS / 2);
    expectWholeLog(events);
    expect(ofType(events, "approval_resolved")).toEqual([]);
    expect(ofType(events, "error")).toEqual([expect.objectContaining({ code: "instance_lost" })]);
    // The call was neither made nor refused: the audit log has nothing to say about it.
    expect((await (await onB.fetch(`/api/audit?conversation=${id}`)).json()).entries).toEqual([]);
  });
});

describe("an instance cut off from the database", () => {
  /** An instance C that reaches the database through a relay the test partitions; C's client is `onC`. */
  async function partitionable(env: Record<string, string> = {}) {
    const proxy = new TcpProxy(Number(new URL(databaseUrl).port));
    await proxy.start();
    const proxied = new URL(databaseUrl);
    proxied.port = new URL(proxy.url).port;
    const c = instance(proxied.toString(), env);
    await c.start();
    const onC = Object.assign(new Api(c.url), { cookie: onB.cookie });
    const stop = async () => {
      proxy.heal();
      await c.stop();
      await proxy.stop();
    };
    return { proxy, onC, stop };
  }

  /** Not taken for dead: no other instance took the run over, and B followed C's stream whole to the end. */
  async function expectRanOnCOnly(followedOnB: SseMessage[], streamOnC: Promise<SseMessage[]>) {
    expect(ofType(followedOnB, "run_resumed")).toEqual([]);
    expectWholeLog(followedOnB);
    expect(followedOnB.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    expect(await streamOnC).toEqual(followedOnB);
  }

  it("stops its runs before its lease runs out, so that they run in one place only; another instance takes them over", async () => {
    const { proxy, onC, stop } = await partitionable();
    try {
      const prompt = "Stream long on C, which loses its database.";
      model.script(prompt, [{ text: "far ".repeat(150), chunkSize: 4, delayMs: 40 }]);
      const { id } = await onC.createConversation();
      const { shown, end } = watchSse(await onC.send(id, prompt));
      await expect.poll(() => ofType(shown, "text_delta").length).toBeGreaterThan(3);
      const follower = readNotingFirst(await onB.events(id), (message) => message.data.type === "run_resumed");
      proxy.hold();
      // C cannot renew its lease: it stops the run and ends its stream before the lease can run out, not after
      // the answer (six seconds on) nor never, and before another instance runs it again.
      const ended = await Promise.race([
        end,
        new Promise((resolve) => setTimeout(() => resolve("still streaming"), LEASE_MS)),
      ]);
      expect(ended).toBe("ended");
      const stoppedOnC = performance.now();
      // The events C showed past the stored log are not the log's: its client is told to read it again from the start.
      expect(shown.at(-1)).toMatchObject({ id: 0, data: { type: "resync" } });

      const { events, markedAt: tookOver } = await follower;
      expect(tookOver).toBeGreaterThan(stoppedOnC);
      expectWholeLog(events);
      expect(ofType(events, "run_resumed")).toEqual([expect.objectContaining({ step: 0 })]);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      // The model streamed the answer to one instance at a time: C's request was closed before B's was made.
      const [onCsAnswer, onBsAnswer] = model.answerSpansFor(prompt);
      expect(onCsAnswer.closedAt).toBeLessThan(onBsAnswer.openedAt);
    } finally {
      await stop();
    }
  });

  it("leaves a run waiting for an approval unanswered, and its client goes on from the store to the run's end elsewhere", async () => {
    const { proxy, onC, stop } = await partitionable();
    try {
      const prompt = "Calculate on C, carefully, until C loses its database.";
      model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
      const { id } = await onC.createConversation("careful");
      const { shown, end } = watchSse(await onC.send(id, prompt));
      // Stored (B reads it from the database): C showed nothing that is not in the log.
      await readSse(await onB.events(id), (message) => message.data.type === "approval_requested");
      const follower = readSse(await onB.events(id));
      proxy.hold();
      const events = await follower;
      // B took the run over from the log: the call's effect is unknown, and no one denied it.
      expectWholeLog(events);
      expect(ofType(events, "error")).toEqual([expect.objectContaining({ code: "instance_lost" })]);
      expect(ofType(events, "approval_resolved")).toEqual([]);
      proxy.heal();
      // C's client was never told to start over; it follows on from the store (reconnecting if its stream was cut).
      const rest = (await end) === "ended" ? [] : await readSse(await onC.events(id, shown.at(-1)!.id));
      expect([...shown, ...rest]).toEqual(events);
      expect((await (await onB.fetch(`/api/audit?conversation=${id}`)).json()).entries).toEqual([]);
    } finally {
      await stop();
    }
  });

  it("ends a run that had answered, taken over while storing its end, with that answer: the model is not asked again", async () => {
    const { proxy, onC, stop } = await partitionable();
    // C's statement that stores the run's outcome is held up; then C loses the database, and its lease.
    const slowFinish = await slowUpdates(databaseUrl, { table: "Run", text: '"finishedAt"', seconds: 3 });
    try {
      const prompt = "Answer on C, which loses its database as it stores the end.";
      model.script(prompt, [{ text: "The one answer." }]);
      const { id } = await onC.createConversation();
      watchSse(await onC.send(id, prompt));
      await slowFinish.inProgress();
      // The answer's step is on record (its step_finished, written beside the held-up outcome); then C is cut off.
      const database = await sqlClient(databaseUrl);
      await expect
        .poll(
          async () =>
            (
              await database.query(
                `SELECT "seq" FROM "Event" WHERE "conversationId" = ? AND "type" = 'step_finished'`,
                id,
              )
            ).length,
        )
        .toBe(1);
      await database.close();
      proxy.hold();
      const events = await readSse(await onB.events(id));
      expectWholeLog(events);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      expect(model.answerSpansFor(prompt)).toHaveLength(1);
      const { messages } = await onB.conversation(id);
      expect(
        messages
          .filter((message: { role: string }) => message.role === "assistant")
          .map((message: { content: string }) => message.content),
      ).toEqual(["The one answer."]);
    } finally {
      await slowFinish.remove();
      await stop();
    }
  });

  /** A run streaming on C, followed on B, goes on whole on C through what `disrupt` does to C's connections. */
  async function expectRunOnCThrough(
    prompt: string,
    disrupt: (proxy: TcpProxy) => Promise<void> | void,
    env?: Record<string, string>,
  ) {
    const { proxy, onC, stop } = await partitionable(env);
    try {
      model.script(prompt, [{ text: "word ".repeat(100), chunkSize: 4, delayMs: 40 }]);
      const { id } = await onC.createConversation();
      const streamOnC = readSse(await onC.send(id, prompt));
      await readSse(await onB.events(id), (message) => message.data.type === "text_delta");
      await disrupt(proxy);
      const followedOnB = await readSse(await onB.events(id));
      await expectRanOnCOnly(followedOnB, streamOnC);
    } finally {
      await stop();
    }
  }

  it("stores a run's events through new connections when the connections its writes went out on go silent for good", () =>
    // A blip, too short for C to lose its lease: every connection open in it (a write of C's among them) never
    // answers again; new ones work.
    expectRunOnCThrough("Stream long on C, whose connections die mid-run.", (proxy) =>
      proxy.silenceOpenConnections(200),
    ));

  it("stores a run's events once when a write was stored but its answer never came: the retry finds them there", () =>
    // The next write goes out on one of these connections, is stored, and times out.
    expectRunOnCThrough("Stream long on C, whose answers from the database stop mid-run.", (proxy) =>
      proxy.silenceAnswers(),
    ));

  it("stores every event of a run through a database restart shorter than its lease: its writes wait for the database", () =>
    // Three seconds down, connections refused at once: well within C's lease (ten seconds here), so C keeps the run.
    expectRunOnCThrough(
      "Stream long on C, whose database restarts mid-run.",
      async (proxy) => {
        proxy.refuse();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        proxy.heal();
      },
      { TOOLSMITH_LEASE_MS: "10000" },
    ));

  it("stores a run's answer through a database restart that comes as the run finishes: the conversation keeps it", async () => {
    const { proxy, onC, stop } = await partitionable({ TOOLSMITH_LEASE_MS: "10000" });
    // The run's row is being finished when the database goes down for three seconds.
    const slowFinish = await slowUpdates(databaseUrl, { table: "Run", text: `"finishedAt"`, seconds: 0.5 });
    try {
      const prompt = "Answer on C, whose database restarts as the run finishes.";
      model.script(prompt, [{ text: "Answered through a restart." }]);
      const { id } = await onC.createConversation();
      const streamOnC = readSse(await onC.send(id, prompt));
      await slowFinish.inProgress();
      proxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      proxy.heal();
      const events = await streamOnC;
      expectWholeLog(events);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      expect((await onB.conversation(id)).messages.map((message: { content: string }) => message.content)).toEqual([
        prompt,
        "Answered through a restart.",
      ]);
    } finally {
      await slowFinish.remove();
      await stop();
    }
  });

  it("keeps a run's answer, in its place, when the next turn begins on B while C cannot store the run's end", async () => {
    const { proxy, onC, stop } = await partitionable({ TOOLSMITH_LEASE_MS: "10000" });
    const slowFinish = await slowUpdates(databaseUrl, { table: "Run", text: '"finishedAt"', seconds: 0.5 });
    try {
      const [first, second] = [
        "First turn, on C, whose database goes away as the run finishes.",
        "Second turn, on B, meanwhile.",
      ];
      model.script(first, [{ text: "One." }]);
      model.script(second, [{ text: "Two." }]);
      const { id } = await onC.createConversation();
      void readSse(await onC.send(id, first)).catch(() => []);
      // C's statement that finishes the run is stored, its answer lost; C cannot reach the database for five seconds.
      await slowFinish.inProgress();
      proxy.refuse();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // B waits two seconds for the end of C's run, then begins after it (and C's late end is refused).
      const secondTurn = readSse(await onB.send(id, second));
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      proxy.heal();
      expect((await secondTurn).at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      await expect
        .poll(
          async () => (await onB.conversation(id)).messages.map((message: { content: string }) => message.content),
          { timeout: 5_000 },
        )
        .toEqual([first, "One.", second, "Two."]);
    } finally {
      await slowFinish.remove();
      await stop();
    }
  });

  it("hears the other instances again when its listening connection goes silent for good: an approval answered on B reaches C", async () => {
    const { proxy, onC, stop } = await partitionable();
    try {
      await proxy.silenceOpenConnections(LEASE_MS);
      // A quarter of a lease to find its listening connection silent (or its new one stuck), a second to connect
      // again, and time to spare.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 1_000));
      const prompt = "Calculate on C, carefully, approved on B.";
      model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
      const { id } = await onC.createConversation("careful");
      const streamOnC = readSse(await onC.send(id, prompt));
      const asked = await readSse(await onB.events(id), (message) => message.data.type === "approval_requested");
      expect((await onB.answerApproval(id, String(asked.at(-1)!.data.approvalId), true)).status).toBe(200);
      const events = await streamOnC;
      expect(ofType(events, "approval_resolved")).toEqual([expect.objectContaining({ approved: true })]);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    } finally {
      await stop();
    }
  });

  it("keeps renewing its leases through new connections when one of its connections goes silent for good", async () => {
    const { proxy, onC, stop } = await partitionable();
    try {
      // A partition long enough for a heartbeat's query to be caught in it; those connections never answer again.
      await proxy.silenceOpenConnections(LEASE_MS);
      const prompt = "Stream long on C, whose old connections are dead.";
      model.script(prompt, [{ text: "near ".repeat(100), chunkSize: 4, delayMs: 40 }]);
      const { id } = await onC.createConversation();
      const streamOnC = readSse(await onC.send(id, prompt));
      const followedOnB = await readSse(await onB.events(id));
      await expectRanOnCOnly(followedOnB, streamOnC);
    } finally {
      await stop();
    }
  });
});
