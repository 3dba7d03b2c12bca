// An instance that dies (kill -9: nothing runs to clean up) leaves its runs' leases to run out; another instance
// then takes the runs over, at once or as it starts. (The `postgresql` project runs this file; its instances come
// from tests/support/instances.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { freshDatabaseUrl, slowUpdates, sqlClient } from "../support/database";
import { LEASE_MS, SPIN, expectWholeLog, scaleOut } from "../support/instances";
import { readNotingFirst, readSse, type SseMessage } from "../support/sse";

const { model, databaseUrl, instance, two, replaceA } = scaleOut();

describe("an instance that dies mid-run", () => {
  afterEach(replaceA);

  /**
   * Start a run on A, follow it on B, kill A once `until` is seen, and read B's follower to the end; with the time
   * from the kill to the first event of the instance that took the run over.
   */
  async function killDuring(prompt: string, until: (message: SseMessage) => boolean) {
    const { id } = await two.onA.createConversation();
    void readSse(await two.onA.send(id, prompt)).catch(() => []);
    await readSse(await two.onB.events(id), until);
    const follower = readNotingFirst(
      await two.onB.events(id),
      (message) => message.data.type === "run_resumed" || message.data.code === "instance_lost",
    );
    await two.a.kill();
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
    const stored = await two.onB.conversation(id);
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "slow ".repeat(150) });
    // the whole log, replayed, is what the follower saw
    expect(await readSse(await two.onB.events(id))).toEqual(events);
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
  // Two server starts, a lease to run out and five takeovers held up 1.5 s each: 20-30 s on a busy 2-core machine,
  // too close to the suite's 30 s.
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
    // The dead instance migrated this database.
    const started = starting.start({ migrated: true });
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
  }, 60_000);
});
