// Instances whose clocks disagree by several leases: leases are read on the database's clock, so no instance takes
// a live run for dead, or a turn out of its order. (The `postgresql` project runs this file; its instances come from
// tests/support/instances.ts.)
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import type { AppServer } from "../support/app-server";
import { LEASE_MS, expectWholeLog, scaleOut } from "../support/instances";
import { readNotingFirst, readSse } from "../support/sse";

const { model, databaseUrl, instance, join, two } = scaleOut();

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
    onAhead = await join(ahead, two.onA);
  }

  beforeAll(startAhead);
  afterAll(() => ahead?.stop());

  it("leave a live run where it runs: an instance whose clock is ahead does not take it for dead", async () => {
    const prompt = "Stream on A for a few heartbeats, followed where the clock is ahead.";
    model.script(prompt, [{ text: "tick ".repeat(60), chunkSize: 5, delayMs: 40 }]);
    const { id } = await two.onA.createConversation();
    const streamOnA = readSse(await two.onA.send(id, prompt));
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
    await readSse(await two.onB.events(id), (message) => message.data.type === "text_delta");
    const follower = readNotingFirst(await two.onB.events(id), (message) => message.data.type === "run_resumed");
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
      const { id } = await two.onA.createConversation();
      const streamOnA = readSse(await two.onA.send(id, prompt));
      const followed = await readSse(await Object.assign(new Api(stepping.url), { cookie: two.onA.cookie }).events(id));
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
    await readSse(await two.onA.send(id, second));
    // What the model was sent for the second turn: the conversation so far, in order.
    expect(
      model.requests
        .at(-1)!
        .messages.filter((message) => message.role !== "system")
        .map((message) => message.content),
    ).toEqual([first, "One.", second]);
    expect((await two.onA.conversation(id)).messages.map((message: { content: string }) => message.content)).toEqual([
      first,
      "One.",
      second,
      "Two.",
    ]);
  });
});
