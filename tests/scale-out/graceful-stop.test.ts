// An instance stopped with SIGTERM, as a deploy stops it, stores what it showed and hands its runs over to the
// others at once instead of leaving their leases to run out. (The `postgresql` project runs this file; its instances
// come from tests/support/instances.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { ofType } from "../support/api";
import { slowInserts } from "../support/database";
import { LEASE_MS, expectWholeLog, scaleOut } from "../support/instances";
import { readNotingFirst, readSse, watchSse } from "../support/sse";

const { model, databaseUrl, two, replaceA } = scaleOut();

describe("an instance that is stopped mid-run (SIGTERM, as a deploy does)", () => {
  afterEach(replaceA);

  it("stores the end of a run that is finishing before it exits", async () => {
    const prompt = "Answer on A, and be stored slowly.";
    model.script(prompt, [{ text: "Ending slowly." }]);
    const { id } = await two.onA.createConversation();
    // Storing the answer takes a second and a half: A is stopped meanwhile, its run's row already finished.
    const slowAnswer = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds: 1.5,
      when: `NEW."role" = 'assistant'`,
    });
    try {
      void readSse(await two.onA.send(id, prompt)).catch(() => []);
      await slowAnswer.inProgress();
      await two.a.stop();
      const events = await readSse(await two.onB.events(id));
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
    const { id } = await two.onA.createConversation();
    const { shown: seenOnA, end: streamOnA } = watchSse(await two.onA.send(id, prompt));
    await expect.poll(() => ofType(seenOnA, "text_delta").length).toBeGreaterThan(50);
    const follower = readNotingFirst(await two.onB.events(id), (message) => message.data.type === "run_resumed");
    const stopped = performance.now();
    await two.a.stop();
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
    const { id } = await two.onA.createConversation("careful");
    void readSse(await two.onA.send(id, prompt)).catch(() => []);
    await readSse(await two.onB.events(id), (message) => message.data.type === "approval_requested");
    const follower = readSse(await two.onB.events(id));
    const stopped = performance.now();
    await two.a.stop();
    const events = await follower;
    expect(performance.now() - stopped).toBeLessThan(LEASE_MS / 2);
    expectWholeLog(events);
    expect(ofType(events, "approval_resolved")).toEqual([]);
    expect(ofType(events, "error")).toEqual([expect.objectContaining({ code: "instance_lost" })]);
    // The call was neither made nor refused: the audit log has nothing to say about it.
    expect((await (await two.onB.fetch(`/api/audit?conversation=${id}`)).json()).entries).toEqual([]);
  });
});
