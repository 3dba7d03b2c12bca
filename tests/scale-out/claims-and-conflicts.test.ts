// One run at a time per conversation, whichever instance each turn reaches: the run's claim (its row's instance,
// claim and lease) says which instance runs it, and an instance whose claim another took stops writing at once.
// (The `postgresql` project runs this file; its instances come from tests/support/instances.ts.)
import { describe, expect, it } from "vitest";
import { ofType } from "../support/api";
import { slowUpdates, sqlClient } from "../support/database";
import { LEASE_MS, expectWholeLog, scaleOut } from "../support/instances";
import { readSse, watchSse } from "../support/sse";

const { model, databaseUrl, two, whileAStoresItsEnd } = scaleOut();

describe("two instances on one PostgreSQL", () => {
  it("stops a run whose row another instance took before A noticed: nothing more of A's is stored, and A's client reads the log again", async () => {
    const prompt = "Stream on A, which loses the run without noticing.";
    model.script(prompt, [{ text: "lost ".repeat(150), chunkSize: 2, delayMs: 15 }]);
    const { id } = await two.onA.createConversation();
    const { shown, end } = watchSse(await two.onA.send(id, prompt));
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
    const { id } = await two.onA.createConversation();
    const { shown } = watchSse(await two.onA.send(id, prompt));
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
    const { id } = await two.onA.createConversation();
    // The statement that stores the run's end, held up on its way (as on a connection that went silent).
    const slowFinish = await slowUpdates(databaseUrl, { table: "Run", text: '"finishedAt"', seconds: 4 });
    const database = await sqlClient(databaseUrl);
    try {
      watchSse(await two.onA.send(id, prompt));
      await slowFinish.inProgress();
      await database.query(
        `UPDATE "Run" SET "instanceId" = 'instance-elsewhere', "claim" = 'claim-elsewhere-${id}', "leaseUntil" = "leaseUntil" + INTERVAL '1 minute' WHERE "conversationId" = '${id}' AND "status" = 'running'`,
      );
      // Past A's next heartbeat; its finish still waits. Stop on A goes to the run's instance, through the database.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      expect((await two.onA.fetch(`/api/conversations/${id}/cancel`, { method: "POST" })).status).toBe(202);
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

  /** The next message, sent on B while A stores its run's end: B's run, and the log once both have ended. */
  async function nextMessageOnBWhileAStoresItsEnd(seconds: number) {
    const {
      id,
      seenOnA,
      result: seenOnB,
    } = await whileAStoresItsEnd(two.onA, seconds, async (id) => {
      const next = `The next message, on B, in ${id}.`;
      model.script(next, [{ text: "Next." }]);
      const sentOnB = await two.onB.send(id, next);
      expect(sentOnB.status).toBe(200);
      return readSse(sentOnB);
    });
    expect(seenOnB.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    return { seenOnA, seenOnB, log: await readSse(await two.onA.events(id)) };
  }

  it("begins a run sent on B after the end of A's run, which A stores after its row says it finished", async () => {
    const { seenOnA, seenOnB, log } = await nextMessageOnBWhileAStoresItsEnd(1.5);
    expectWholeLog(seenOnA);
    expect(seenOnB[0].id).toBe(seenOnA.length + 1);
    // Both runs stored whole, one after the other.
    expect(log).toEqual([...seenOnA, ...seenOnB]);
  });

  it("ends the claim of A's finished run when its end is not stored within the grace: its late write is refused, never mixed into B's run", async () => {
    // Past the grace B waits for (2 s), and past B's whole run.
    const { seenOnB, log } = await nextMessageOnBWhileAStoresItsEnd(4);
    // A's run_finished came after B's run began: refused. The log is A's run up to there, then B's run.
    expect(log.map((event) => event.id)).toEqual(log.map((_, index) => index + 1));
    expect(log.slice(-seenOnB.length)).toEqual(seenOnB);
    expect(ofType(log, "run_finished")).toEqual([seenOnB.at(-1)!.data]);
  });

  it("calls a tool registered through A in the next turn through B", async () => {
    const { id } = await two.onA.createConversation();
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
    expect(ofType(await two.onA.run(id, "Make a doubler on A."), "tool_registered")).toHaveLength(1);
    model.script("Use it on B.", [{ toolCalls: [{ name: "doubler", args: { n: 21 } }] }, { text: "42." }]);
    const events = await two.onB.run(id, "Use it on B.");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "doubler", ok: true, output: 42 });
  });
});
