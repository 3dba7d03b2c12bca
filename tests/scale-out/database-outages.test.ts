// An instance cut off from the database (a network partition, connections that go silent, a database restart):
// it stops its runs before its lease runs out, or, within the lease, goes on through new connections; either way
// each run runs in one place and its log is stored whole. (The `postgresql` project runs this file; its instances
// come from tests/support/instances.ts, the relay from tests/support/tcp-proxy.ts.)
import { describe, expect, it } from "vitest";
import { ofType } from "../support/api";
import { slowUpdates, sqlClient } from "../support/database";
import { LEASE_MS, expectWholeLog, scaleOut } from "../support/instances";
import { readNotingFirst, readSse, watchSse, type SseMessage } from "../support/sse";
import { TcpProxy } from "../support/tcp-proxy";

// A runs beside B, as in the other files, though the tests here ask only B (and C, the instance they cut off).
const { model, databaseUrl, instance, join, two } = scaleOut();

describe("an instance cut off from the database", () => {
  /** An instance C that reaches the database through a relay the test partitions; C's client is `onC`. */
  async function partitionable(env: Record<string, string> = {}) {
    const proxy = new TcpProxy(Number(new URL(databaseUrl).port));
    await proxy.start();
    const proxied = new URL(databaseUrl);
    proxied.port = new URL(proxy.url).port;
    const c = instance(proxied.toString(), env);
    const onC = await join(c, two.onB);
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
      const follower = readNotingFirst(await two.onB.events(id), (message) => message.data.type === "run_resumed");
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
      await readSse(await two.onB.events(id), (message) => message.data.type === "approval_requested");
      const follower = readSse(await two.onB.events(id));
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
      expect((await (await two.onB.fetch(`/api/audit?conversation=${id}`)).json()).entries).toEqual([]);
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
      const events = await readSse(await two.onB.events(id));
      expectWholeLog(events);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      expect(model.answerSpansFor(prompt)).toHaveLength(1);
      const { messages } = await two.onB.conversation(id);
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
      await readSse(await two.onB.events(id), (message) => message.data.type === "text_delta");
      await disrupt(proxy);
      const followedOnB = await readSse(await two.onB.events(id));
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

  it("stores a run's events through new connections when the connections it opens during a partition never answer", () =>
    // Longer than a statement's timeout on the live pool (a quarter of a ten-second lease): a write caught in it times
    // out and goes again through a new connection, which the partition holds too and which never answers. That costs
    // the write a timeout, not the run's log; the lease outlasts it all.
    expectRunOnCThrough(
      "Stream long on C, whose new connections die mid-run.",
      (proxy) => proxy.silenceOpenConnections(4_000),
      { TOOLSMITH_LEASE_MS: "10000" },
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
      expect((await two.onB.conversation(id)).messages.map((message: { content: string }) => message.content)).toEqual([
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
      const secondTurn = readSse(await two.onB.send(id, second));
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      proxy.heal();
      expect((await secondTurn).at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      await expect
        .poll(
          async () => (await two.onB.conversation(id)).messages.map((message: { content: string }) => message.content),
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
      const asked = await readSse(await two.onB.events(id), (message) => message.data.type === "approval_requested");
      expect((await two.onB.answerApproval(id, String(asked.at(-1)!.data.approvalId), true)).status).toBe(200);
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
      const followedOnB = await readSse(await two.onB.events(id));
      await expectRanOnCOnly(followedOnB, streamOnC);
    } finally {
      await stop();
    }
  });
});
