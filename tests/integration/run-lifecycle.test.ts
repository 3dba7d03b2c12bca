import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, slowInserts, sqlClient, testProvider } from "../support/database";
import { ModelServer } from "../support/model-server";
import { readSse, type SseMessage } from "../support/sse";

const SPIN_3S = "function run() { const end = Date.now() + 3000; while (Date.now() < end) {} return 'finished'; }";

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_MAX_STEPS: "20", TOOLSMITH_MODEL_RETRIES: "8" }, databaseUrl);
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

/** A trigger that makes storing one conversation's events of one type fail, on each provider; dropped by `writesWork`. */
const failWritesOf = (type: string, conversationId: string) =>
  ({
    sqlite: `CREATE TRIGGER fail_event BEFORE INSERT ON "Event" WHEN NEW."type" = '${type}' AND NEW."conversationId" = '${conversationId}'
    BEGIN SELECT RAISE(ABORT, 'forced failure of a write'); END;`,
    postgresql: `CREATE OR REPLACE FUNCTION fail_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'forced failure of a write'; END $$;
    CREATE TRIGGER fail_event BEFORE INSERT ON "Event" FOR EACH ROW
    WHEN (NEW."type" = '${type}' AND NEW."conversationId" = '${conversationId}') EXECUTE FUNCTION fail_event();`,
  })[testProvider];
const writesWork = `DROP TRIGGER fail_event${testProvider === "postgresql" ? ` ON "Event"` : ""}`;

/** The model registers `spin`, a tool that busy-waits 3 s, calls it, then answers. */
const scriptSpin = (prompt: string) =>
  model.script(prompt, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: { name: "spin", description: "Busy-wait 3 s.", parameters_schema: { type: "object" }, code: SPIN_3S },
        },
      ],
    },
    { toolCalls: [{ name: "spin", args: {} }] },
    { text: "Spun." },
  ]);
const sandboxStats = async () => (await (await fetch(`${app.url}/api/health`)).json()).sandbox;
const cancel = (conversationId: string) => api.fetch(`/api/conversations/${conversationId}/cancel`, { method: "POST" });

/** Every event of each run ends with its run_finished: nothing of a run comes after it. */
function expectRunsClosed(events: SseMessage[]) {
  const finished = new Set<string>();
  for (const event of events) {
    expect(finished.has(event.data.runId), `${event.data.type} #${event.id} after its run finished`).toBe(false);
    if (event.data.type === "run_finished") finished.add(event.data.runId);
  }
}

describe("a run's life", () => {
  it("Stop during a 3 s tool terminates its thread; a message sent at once runs, and the log stays whole", async () => {
    const prompt = "Spin for three seconds.";
    scriptSpin(prompt);
    model.script("Next question.", [{ text: "Answered." }]);
    const conversation = await api.createConversation();
    const before = await sandboxStats();

    const seen = await readSse(
      await api.send(conversation.id, prompt),
      (message) => message.data.type === "tool_call" && message.data.name === "spin",
    );
    await expect.poll(async () => (await sandboxStats()).busy, { interval: 20 }).toBe(1);
    const stopped = performance.now();
    expect((await cancel(conversation.id)).status).toBe(202);
    const next = await api.send(conversation.id, "Next question.");
    expect(next.status).toBe(200);
    const rest = await readSse(
      await api.events(conversation.id, seen.at(-1)!.id),
      (message) => message.data.type === "run_finished",
    );
    expect(performance.now() - stopped).toBeLessThan(1000);
    const secondEvents = await readSse(next);

    expect(rest.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
    expect(ofType(rest, "tool_result")).toEqual([
      expect.objectContaining({ name: "spin", ok: false, error: expect.stringContaining("cancelled") }),
    ]);
    expect(secondEvents.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    expect((await sandboxStats()).terminated.cancelled).toBe(before.terminated.cancelled + 1);

    const all = await readSse(await api.events(conversation.id));
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(all).toEqual([...seen, ...rest, ...secondEvents]);
    expectRunsClosed(all);

    const db = await sqlClient(databaseUrl);
    const [execution] = await db.query<{ status: string; durationMs: number }>(
      `SELECT "status", "durationMs" FROM "ToolExecution" WHERE "conversationId" = ? AND "toolName" = 'spin'`,
      conversation.id,
    );
    await db.close();
    expect(execution.status).toBe("cancelled");
    expect(execution.durationMs).toBeLessThan(3000);
    // the stopped tool never finished on its own, so it wrote nothing late either
    await new Promise((resolve) => setTimeout(resolve, 3200));
    expect(app.output).not.toMatch(/Could not store|UNIQUE constraint|after it ended/);
    expect((await readSse(await api.events(conversation.id))).length).toBe(all.length);
  });

  it("answers a follower at once while the run is quiet: the response begins before the run's next event", async () => {
    const prompt = "Spin quietly for three seconds.";
    scriptSpin(prompt);
    const conversation = await api.createConversation();
    const seen = await readSse(
      await api.send(conversation.id, prompt),
      (message) => message.data.type === "tool_call" && message.data.name === "spin",
    );
    const asked = performance.now();
    const following = await api.events(conversation.id, seen.at(-1)!.id);
    expect(performance.now() - asked).toBeLessThan(1_000);
    const rest = await readSse(following);
    expect(rest[0].data).toMatchObject({ type: "tool_result", name: "spin", ok: true });
    expect(rest.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("completes a run whose client walked away mid-stream, and replays it whole", async () => {
    const prompt = "Talk while nobody listens.";
    model.script(prompt, [
      {
        text: "Computing.",
        toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }],
        chunkSize: 3,
        delayMs: 20,
      },
      { text: "The answer is 42, said slowly.", chunkSize: 3, delayMs: 20 },
    ]);
    const conversation = await api.createConversation();
    const seen = await readSse(
      await api.send(conversation.id, prompt),
      (message) => message.data.type === "text_delta",
    );
    expect(seen.at(-1)!.data.type).toBe("text_delta");

    await expect
      .poll(async () => (await api.conversation(conversation.id)).activeRunId, { timeout: 10_000 })
      .toBeNull();
    const replayed = await readSse(await api.events(conversation.id));
    expect(replayed.slice(0, seen.length)).toEqual(seen);
    expect(replayed.map((event) => event.id)).toEqual(replayed.map((_, index) => index + 1));
    expect(ofType(replayed, "tool_result")[0]).toMatchObject({ output: 42 });
    expect(replayed.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const stored = await api.conversation(conversation.id);
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "The answer is 42, said slowly." });
  });

  it("does not lock the conversation when the run's last write fails", async () => {
    const conversation = await api.createConversation();
    const writer = await sqlClient(databaseUrl);
    await writer.query(failWritesOf("run_finished", conversation.id));
    try {
      model.script("First, whose end is lost.", [{ text: "Said." }]);
      const first = await api.run(conversation.id, "First, whose end is lost.");
      expect(first.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      await expect.poll(() => app.output).toMatch(/forced failure of a write/);
    } finally {
      await writer.query(writesWork);
      await writer.close();
    }
    // Not running, for a script that waits for that (its end was lost, after the grace the log is given for it).
    await expect.poll(async () => (await api.conversation(conversation.id)).activeRunId, { timeout: 5_000 }).toBeNull();
    model.script("Second, after the failure.", [{ text: "Still here." }]);
    const second = await api.send(conversation.id, "Second, after the failure.");
    expect(second.status).toBe(200);
    expect((await readSse(second)).at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it.runIf(testProvider === "postgresql")(
    "keeps its run while it stores the outcome: a follower that connects meanwhile gets the run to its end",
    async () => {
      const conversation = await api.createConversation();
      // Storing the answer takes longer than two heartbeats (a second apart), which find the run finished.
      const slowAnswer = await slowInserts(databaseUrl, {
        table: "Message",
        conversationId: conversation.id,
        seconds: 2.5,
        when: `NEW."role" = 'assistant'`,
      });
      try {
        const prompt = "Answer, and be stored slowly.";
        model.script(prompt, [{ text: "Stored slowly." }]);
        const streamed = readSse(await api.send(conversation.id, prompt));
        await slowAnswer.inProgress();
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const followed = await readSse(await api.events(conversation.id));
        expect(followed.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
        expect(followed).toEqual(await streamed);
      } finally {
        await slowAnswer.remove();
      }
    },
  );

  it("stores nothing of a run after a batch of its events that could not be stored: the log is what the run showed up to there, without a gap", async () => {
    const conversation = await api.createConversation();
    const writer = await sqlClient(databaseUrl);
    await writer.query(failWritesOf("tool_result", conversation.id));
    try {
      const prompt = "Calculate, then say it slowly; the result is never stored.";
      model.script(prompt, [
        { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] },
        { text: "The answer is 42, said slowly.", chunkSize: 3, delayMs: 100 },
      ]);
      const shown = await api.run(conversation.id, prompt);
      expect(shown.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      await expect.poll(() => app.output).toMatch(/forced failure of a write/);
      const stored = (await api.conversation(conversation.id)).events.map(({ id }: { id: number }) => id);
      const unstored = shown.find((event) => event.data.type === "tool_result")!.id;
      // What came before the batch that failed, and nothing after it: ids 1, 2, 3 … up to there.
      expect(stored).toEqual(stored.map((_: number, index: number) => index + 1));
      expect(stored.at(-1)).toBeLessThan(unstored);
    } finally {
      await writer.query(writesWork);
      await writer.close();
    }
  });

  it("is not disturbed by a second server started on its port: that one exits at once, before it takes any run", async () => {
    const prompt = "Stream on the first server while a second one starts.";
    model.script(prompt, [{ text: "word ".repeat(40), chunkSize: 4, delayMs: 40 }]);
    const { id } = await api.createConversation();
    const streamed = readSse(await api.send(id, prompt));
    const second = scriptedApp(model.url, {}, databaseUrl);
    await expect(second.start({ port: Number(new URL(app.url).port), migrated: true })).rejects.toThrow(
      /cannot listen .*EADDRINUSE/,
    );
    expect((await streamed).at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    // A server that prepared the app first would have taken the run over and asked the model again.
    expect(model.answerSpansFor(prompt)).toHaveLength(1);
  });

  it.runIf(testProvider === "sqlite")(
    "is not disturbed by a second server started on its SQLite database: its migration, then the server, stop before they change anything",
    async () => {
      const prompt = "Stream on the first server while a second one starts on its database.";
      // Streams for 30 s: still running when the migration and the second server have each given up waiting for the database (5 s).
      model.script(prompt, [{ text: "word ".repeat(600), chunkSize: 4, delayMs: 40 }]);
      const { id } = await api.createConversation();
      const streamed = readSse(await api.send(id, prompt));
      const second = scriptedApp(model.url, {}, databaseUrl);
      try {
        // `npm start` migrates first: that stops too, before it changes anything (or builds).
        await expect(second.start()).rejects.toThrow(
          /Migration failed: .*Cannot migrate: another Toolsmith server uses the SQLite database/s,
        );
        await expect(second.start({ migrated: true })).rejects.toThrow(
          /another Toolsmith server uses the SQLite database/,
        );
        // It said nothing of serving: it had not started.
        expect(second.output).not.toContain("Toolsmith is serving on");
      } finally {
        await second.stop();
      }
      await cancel(id);
      expect((await streamed).at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
      // A second server that started would have taken the running run for its predecessor's and asked the model again.
      expect(model.answerSpansFor(prompt)).toHaveLength(1);
    },
  );

  it("stops at once while the model request waits out a retry backoff", async () => {
    const prompt = "Fail with 503 until stopped.";
    model.script(prompt, () => ({ status: 503 }));
    const conversation = await api.createConversation();
    const events = readSse(await api.send(conversation.id, prompt));
    // backoffs of 0.5 s and 1 s lead to the third request; the fourth would wait 2 s more
    await expect.poll(() => model.requestsFor(prompt).length, { interval: 20, timeout: 5000 }).toBe(3);
    const stopped = performance.now();
    await cancel(conversation.id);
    expect((await events).at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
    expect(performance.now() - stopped).toBeLessThan(500);
    expect(model.requestsFor(prompt)).toHaveLength(3);
  });

  it("runs 20 steps without piling up abort listeners", async () => {
    const prompt = "Count to twenty with the calculator.";
    model.script(prompt, (step) =>
      step < 19 ? { toolCalls: [{ name: "calculate", args: { expression: `${step} + 1` } }] } : { text: "Twenty." },
    );
    const conversation = await api.createConversation();
    const events = await api.run(conversation.id, prompt);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed", steps: 20 });
    expect(app.output).not.toContain("MaxListenersExceeded");
  });
});
