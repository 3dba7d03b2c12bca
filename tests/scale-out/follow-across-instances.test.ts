// Following a run from another instance than the one running it, by its owner or through a share link: every
// instance reads the run's events from the database and hears of new ones through it. (The `postgresql` project runs
// this file; its instances come from tests/support/instances.ts.)
import { describe, expect, it } from "vitest";
import { ofType } from "../support/api";
import { slowInserts } from "../support/database";
import { expectWholeLog, scaleOut } from "../support/instances";
import { readSse, watchSse } from "../support/sse";

const { model, databaseUrl, two, whileAStoresItsEnd } = scaleOut();

describe("two instances on one PostgreSQL", () => {
  it("follow a run from the other instance, by its owner and by a share link: the same events, in order, to the end; a second message there is refused", async () => {
    const prompt = "Stream slowly on A.";
    // Three seconds of stream: still running when B is sent a second message, however loaded the machine.
    model.script(prompt, [{ text: "word ".repeat(200), chunkSize: 5, delayMs: 15 }]);
    const { id } = await two.onA.createConversation();
    const { token } = await (await two.onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const streamOnA = readSse(await two.onA.send(id, prompt));
    const firstDelta = await readSse(await two.onB.events(id), (message) => message.data.type === "text_delta");
    expect(firstDelta[0].data.type).toBe("run_started");
    // a stranger with the share link, on B
    const sharedOnB = readSse(await fetch(`${two.b.url}/api/share/${token}/events`));

    const conflict = await two.onB.send(id, "A second message, on B.");
    expect(conflict.status).toBe(409);

    const followedOnB = await readSse(await two.onB.events(id));
    const seenOnA = await streamOnA;
    expectWholeLog(followedOnB);
    expect(followedOnB).toEqual(seenOnA);
    expect(await sharedOnB).toEqual(seenOnA);
    // resuming on B from the middle gives the rest
    const rest = await readSse(await two.onB.events(id, 10));
    expect(rest).toEqual(seenOnA.slice(10));
    expect((await two.onB.conversation(id)).activeRunId).toBeNull();
  });

  it("cuts the streams open on a share link on both instances when the link is revoked on one", async () => {
    const prompt = "Stream slowly while the link is revoked.";
    model.script(prompt, [{ deltas: 300, numbered: true, delayMs: 10 }]);
    const { id } = await two.onA.createConversation();
    const { token } = await (await two.onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const own = readSse(await two.onA.send(id, prompt));
    const shared = await Promise.all(
      [two.a, two.b].map(async (server) => watchSse(await fetch(`${server.url}/api/share/${token}/events`))),
    );
    for (const stream of shared)
      await expect.poll(() => ofType(stream.shown, "text_delta").length, { timeout: 5_000 }).toBeGreaterThan(0);

    expect((await two.onA.fetch(`/api/conversations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    const revokedAt = performance.now();
    expect(await Promise.all(shared.map((stream) => stream.end))).toEqual(["cut off", "cut off"]);
    expect(performance.now() - revokedAt).toBeLessThan(1_000);
    expect(ofType(await own, "text_delta")).toHaveLength(300);
  });

  it("follows a run from B to its end when B is reached after the run's row is finished and before its run_finished is stored", async () => {
    const { seenOnA, result } = await whileAStoresItsEnd(two.onA, 1.5, async (id) => {
      const { token } = await (await two.onA.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
      return Promise.all([
        readSse(await two.onB.events(id)),
        readSse(await fetch(`${two.b.url}/api/share/${token}/events`)),
        two.onB.conversation(id),
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
    const { seenOnA, result: followedOnB } = await whileAStoresItsEnd(two.onA, 4.5, async (id) =>
      readSse(await two.onB.events(id)),
    );
    expectWholeLog(seenOnA);
    expect(followedOnB).toEqual(seenOnA);
  });

  it("ends the stream of a follower that had all of a run's stored events when a newer run begins, the run's end lost", async () => {
    const prompt = "Answer on A, whose run_finished is refused.";
    model.script(prompt, [{ text: "Ended, unstored." }]);
    const { id } = await two.onA.createConversation();
    const lostEnd = await slowInserts(databaseUrl, {
      table: "Event",
      conversationId: id,
      seconds: 0,
      when: `NEW."type" = 'run_finished'`,
      thenFail: true,
    });
    let runOnA: string;
    try {
      runOnA = (await readSse(await two.onA.send(id, prompt)))[0].data.runId as string;
    } finally {
      await lostEnd.remove();
    }
    // A client that reconnects with the last id it has, the last one stored, and no segment (as an EventSource
    // does). Its response begins with its first event: it is not waited for, but it has begun, before the next
    // message is sent (else it would follow the run of that message).
    const following = two.onB.events(id, (await two.onB.conversation(id)).lastEventId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = "The next message, on A, while a follower on B waits for the lost end.";
    model.script(next, [{ text: "Next." }]);
    const seenOnA = await readSse(await two.onA.send(id, next));
    expect(seenOnA.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    // The stream ended with the run it followed, before the newer one's events.
    const followed = await readSse(await following);
    expect(followed.map((event) => event.data.runId)).toEqual(followed.map(() => runOnA));
  });

  it("ends the stream of a follower that came while a run was starting, when the run cannot start", async () => {
    const { id } = await two.onA.createConversation();
    const failingStart = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds: 1,
      when: `NEW."role" = 'user'`,
      thenFail: true,
    });
    try {
      const sent = two.onA.send(id, "A message that is never stored.");
      await failingStart.inProgress();
      const follower = readSse(await two.onA.events(id));
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
});
