import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { AppServer, scriptedApp } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { ModelServer } from "../support/model-server";
import { readSse, watchSse } from "../support/sse";

const WORD_COUNT = `function run(inputs) {
  const words = inputs.text.trim().split(/\\s+/).filter(Boolean);
  return { words: words.length };
}`;
const WORD_COUNT_SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

const model = new ModelServer();
let app: AppServer;
let api: Api;

async function startApp() {
  app = scriptedApp(model.url, { TOOLSMITH_MAX_STEPS: "4", TOOLSMITH_TOOL_TIMEOUT_MS: "1500" }, databaseUrl);
  await app.start();
  const cookie = api?.cookie;
  api = new Api(app.url);
  api.cookie = cookie;
}
const databaseUrl = freshDatabaseUrl();

beforeAll(async () => {
  await model.start();
  await startApp();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("the agent loop over HTTP", () => {
  it("registers a tool, calls it, answers; the tool is offered from the next step on", async () => {
    const prompt = "How many words are in 'the quick brown fox'?";
    model.script(prompt, [
      {
        reasoning: "No tool counts words; I will write one.",
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "word_count",
              description: "Count the words in a text.",
              parameters_schema: WORD_COUNT_SCHEMA,
              code: WORD_COUNT,
            },
          },
        ],
      },
      { toolCalls: [{ name: "word_count", args: { text: "the quick brown fox" } }] },
      { text: "There are **4** words." },
    ]);
    const conversation = await api.createConversation();
    const events = await api.run(conversation.id, prompt);

    // ids: integers, increasing, no gaps, starting at 1 for a new conversation
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events[0].data).toMatchObject({ type: "run_started", model: "scripted-model" });
    expect(events.every((event) => event.event === event.data.type && event.data.runId === events[0].data.runId)).toBe(
      true,
    );

    const [registered] = ofType(events, "tool_registered");
    expect(registered).toMatchObject({
      step: 1,
      tool: { name: "word_count", version: 1, code: WORD_COUNT, parametersSchema: WORD_COUNT_SCHEMA },
    });
    // The PR's client (messageUtils.js) reads the name and the description at the top level of the event's data.
    expect(registered.tool_name).toBe("word_count");
    expect(registered.description).toBe((registered.tool as { description: string }).description);
    const results = ofType(events, "tool_result");
    expect(results[0]).toMatchObject({ name: "register_tool", ok: true });
    expect(results[1]).toMatchObject({ name: "word_count", ok: true, output: { words: 4 }, step: 2 });
    expect(
      ofType(events, "text_delta")
        .map((event) => event.delta)
        .join(""),
    ).toBe("There are **4** words.");
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed", steps: 3 });

    const requests = model.requestsFor(prompt);
    const toolNames = (index: number) => requests[index].tools!.map((tool) => tool.function.name);
    expect(toolNames(0)).not.toContain("word_count");
    expect(toolNames(1)).toContain("word_count");
    expect(requests[1].tools!.find((tool) => tool.function.name === "word_count")!.function.parameters).toMatchObject(
      WORD_COUNT_SCHEMA,
    );
    // the tool's result reached the model
    expect(JSON.stringify(requests[2].messages)).toContain('{\\"words\\":4}');

    const stored = await api.conversation(conversation.id);
    expect(stored.title).toBe(prompt);
    expect(stored.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"]);
    expect(stored.messages[1].content).toBe("There are **4** words.");
    expect(stored.tools).toMatchObject([{ name: "word_count", version: 1, status: "active" }]);
  });

  it("keeps a registered tool callable in the next turn, after a server restart", async () => {
    const first = "Make a shout tool.";
    const second = "Shout hello.";
    model.script(first, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "shout",
              description: "Upper-case a text.",
              parameters_schema: { type: "object", properties: { text: { type: "string" } } },
              code: "function run({ text }) { return text.toUpperCase() + '!'; }",
            },
          },
        ],
      },
      { text: "Done." },
    ]);
    model.script(second, [{ toolCalls: [{ name: "shout", args: { text: "hello" } }] }, { text: "HELLO!" }]);
    const conversation = await api.createConversation();
    await api.run(conversation.id, first);

    await app.stop();
    await startApp();

    const events = await api.run(conversation.id, second);
    expect(model.requestsFor(second)[0].tools!.map((tool) => tool.function.name)).toContain("shout");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "shout", ok: true, output: "HELLO!" });
    // ids continue the conversation's log
    const all = (await api.conversation(conversation.id)).events as { id: number }[];
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    // the first turn, with its tool call and result, is in the model's history
    const history = JSON.stringify(model.requestsFor(second)[0].messages);
    expect(history).toContain("register_tool");
    expect(history).toContain("Make a shout tool.");
  });

  it("resumes a run cut off by a restart: the new process takes it over and goes on after its last finished step, and every event the first one showed is kept", async () => {
    const prompt = "Stream until the server stops.";
    let requests = 0;
    // The first process streams faster than its event log is stored until it is stopped; the next one is answered.
    model.script(prompt, () =>
      ++requests === 1 ? { deltas: 2000, numbered: true, delayMs: 5 } : { text: "Answered after the restart." },
    );
    const conversation = await api.createConversation();
    const { shown, end } = watchSse(await api.send(conversation.id, prompt));
    await expect.poll(() => ofType(shown, "text_delta").length).toBeGreaterThan(30);
    await app.stop();
    expect(await end).toBe("cut off");
    await startApp();

    const events = await readSse(await api.events(conversation.id));
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events.slice(0, shown.length)).toEqual(shown);
    expect(ofType(events, "run_resumed")).toEqual([expect.objectContaining({ step: 0 })]);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const stored = await api.conversation(conversation.id);
    expect(stored.activeRunId).toBeNull();
    expect(stored.runs.at(-1)).toMatchObject({ status: "completed" });
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "Answered after the restart." });
    model.script("And now?", [{ text: "Back." }]);
    expect((await api.run(conversation.id, "And now?")).at(-1)!.data).toMatchObject({ status: "completed" });
  });

  it("rejects forbidden code with line and column; the model reads the violations and registers a fixed version", async () => {
    const prompt = "Read an environment variable.";
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "env_reader",
              description: "Read env.",
              parameters_schema: { type: "object" },
              code: "function run() {\n  return process.env.HOME;\n}",
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "env_reader",
              description: "Explain.",
              parameters_schema: { type: "object" },
              code: "function run() { return 'not available in the sandbox'; }",
            },
          },
        ],
      },
      { toolCalls: [{ name: "env_reader", args: {} }] },
      { text: "The sandbox has no environment." },
    ]);
    const conversation = await api.createConversation();
    const events = await api.run(conversation.id, prompt);

    const [rejected] = ofType(events, "tool_rejected");
    expect(rejected).toMatchObject({
      step: 1,
      name: "env_reader",
      code: "function run() {\n  return process.env.HOME;\n}",
    });
    expect(rejected.violations).toContainEqual(
      expect.objectContaining({ line: 2, column: 10, message: expect.stringContaining("process") }),
    );
    expect(ofType(events, "tool_result")[0]).toMatchObject({
      ok: false,
      error: expect.stringContaining("line 2, column 10"),
    });
    // the rejection is the model's next observation
    expect(JSON.stringify(model.requestsFor(prompt)[1].messages)).toContain("process");
    expect(ofType(events, "tool_registered")).toHaveLength(1);
    expect(ofType(events, "tool_result").at(-1)).toMatchObject({
      name: "env_reader",
      ok: true,
      output: "not available in the sandbox",
    });
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
  });

  it("answers an unknown tool with a hint to create it, and broken JSON arguments with an error", async () => {
    const prompt = "Use a tool that does not exist.";
    model.script(prompt, [
      {
        toolCalls: [
          { name: "weather", args: { city: "Tokyo" } },
          { name: "calculate", args: '{"expression": "1 +' },
        ],
      },
      { text: "I will create it." },
    ]);
    const conversation = await api.createConversation();
    const events = await api.run(conversation.id, prompt);
    const results = ofType(events, "tool_result");
    const unknown = results.find((result) => result.name === "weather");
    const broken = results.find((result) => result.name === "calculate");
    expect(unknown).toMatchObject({ name: "weather", ok: false, error: expect.stringContaining("register_tool") });
    expect(broken).toMatchObject({ name: "calculate", ok: false, error: expect.stringContaining("not valid JSON") });
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
  });

  it("stops a runaway model at the step ceiling", async () => {
    const prompt = "Loop forever.";
    model.script(prompt, () => ({ toolCalls: [{ name: "calculate", args: { expression: "1 + 1" } }] }));
    const conversation = await api.createConversation();
    const events = await api.run(conversation.id, prompt);
    expect(ofType(events, "step_started")).toHaveLength(4);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "max_steps", steps: 4 });
    expect(model.requestsFor(prompt)).toHaveLength(4);
  });

  it("contains a spinning tool, a memory bomb and a 5 MB output while /api/health keeps answering", async () => {
    const prompt = "Run the hostile tools.";
    const tool = (name: string, code: string) => ({
      name: "register_tool",
      args: { name, description: name, parameters_schema: { type: "object" }, code },
    });
    model.script(prompt, [
      {
        toolCalls: [
          tool("spin", "function run() { while (true) {} }"),
          tool(
            "bomb",
            "function run() { const a = []; while (true) { try { a.push('x'.repeat(1 << 20)); } catch (e) {} } }",
          ),
          tool("flood", "function run() { return 'y'.repeat(5 * 1024 * 1024); }"),
        ],
      },
      {
        toolCalls: [
          { name: "spin", args: {} },
          { name: "bomb", args: {} },
          { name: "flood", args: {} },
        ],
      },
      { text: "Contained." },
    ]);
    const conversation = await api.createConversation();
    const pending = api.run(conversation.id, prompt);

    const healthTimes: number[] = [];
    const probe = (async () => {
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        const started = performance.now();
        const response = await fetch(`${app.url}/api/health`);
        expect(response.status).toBe(200);
        healthTimes.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const [events] = await Promise.all([pending, probe]);

    const results = Object.fromEntries(
      ofType(events, "tool_result")
        .filter((r) => r.step === 2)
        .map((r) => [r.name, r]),
    );
    expect(results.spin).toMatchObject({ ok: false, error: expect.stringMatching(/1500 ms/) });
    expect(results.bomb).toMatchObject({ ok: false, error: expect.stringMatching(/memory|1500 ms/) });
    expect(results.flood).toMatchObject({ ok: true, truncated: true });
    expect(String(results.flood.output).length).toBeLessThan(17_000);
    expect(String(results.flood.output)).toContain("[truncated");
    expect(Math.max(...healthTimes)).toBeLessThan(500);
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
  });

  it("ends the run with an error on a model 500 and on a dropped stream; the conversation stays usable", async () => {
    for (const [prompt, reply] of [
      ["Fail with 500.", { status: 500 }],
      ["Drop the stream.", { drop: "after-first-chunk" as const }],
    ] as const) {
      model.script(prompt, [reply]);
      const conversation = await api.createConversation();
      const events = await api.run(conversation.id, prompt);
      expect(ofType(events, "error")[0]).toMatchObject({
        code: expect.stringMatching(/^model_/),
        message: expect.any(String),
      });
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "error" });

      model.script(`${prompt} again`, [{ text: "Fine now." }]);
      const next = await api.run(conversation.id, `${prompt} again`);
      expect(next.at(-1)!.data).toMatchObject({ status: "completed" });
    }
  });

  it("replays the same events with the same ids from /events, and resumes after Last-Event-ID", async () => {
    const prompt = "Compute 6 * 7.";
    model.script(prompt, [
      { text: "Let me compute.", toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] },
      { text: "42." },
    ]);
    const conversation = await api.createConversation();
    const live = await api.run(conversation.id, prompt);
    expect(ofType(live, "tool_result")[0]).toMatchObject({ name: "calculate", output: 42 });

    const replayed = await readAll(await api.events(conversation.id));
    const withoutDeltas = (events: typeof live) => events.filter((event) => !event.data.type.endsWith("_delta"));
    expect(withoutDeltas(replayed)).toEqual(withoutDeltas(live));
    expect(replayed).toEqual(live);

    const resumed = await readAll(await api.events(conversation.id, 5));
    expect(resumed).toEqual(live.filter((event) => event.id > 5));
    const viaQuery = await readAll(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=${live.length - 1}`),
    );
    expect(viaQuery).toEqual([live.at(-1)]);
  });

  it("follows a run live from /events after the sending client disconnects", async () => {
    const prompt = "Talk slowly.";
    model.script(prompt, [{ text: "one two three four five six seven eight nine ten", chunkSize: 4, delayMs: 40 }]);
    const conversation = await api.createConversation();
    const sent = await api.send(conversation.id, prompt);
    const firstEvents = await readSse(sent, (message) => message.data.type === "text_delta");
    // the client went away mid-run; the run goes on, and /events picks up where it left
    const rest = await readAll(await api.events(conversation.id, firstEvents.at(-1)!.id));
    const all = [...firstEvents, ...rest];
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(
      ofType(all, "text_delta")
        .map((event) => event.delta)
        .join(""),
    ).toBe("one two three four five six seven eight nine ten");
    expect(all.at(-1)!.data).toMatchObject({ status: "completed" });
  });

  it("cancels an active run", async () => {
    const prompt = "Stall.";
    model.script(prompt, [{ stallMs: 5000 }]);
    const conversation = await api.createConversation();
    const sent = api.send(conversation.id, prompt);
    const stream = readAll(await sent);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancel = await api.fetch(`/api/conversations/${conversation.id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(202);
    const events = await stream;
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
  });

  it("reports a missing model configuration as an error event", async () => {
    const bare = new AppServer({ DATABASE_URL: freshDatabaseUrl(), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" });
    await bare.start();
    try {
      const client = new Api(bare.url);
      const conversation = await client.createConversation();
      const events = await client.run(conversation.id, "Hello?").catch((error) => {
        throw new Error(`${error.message}\n${bare.output}`);
      });
      expect(ofType(events, "error")[0]).toMatchObject({
        code: "model_not_configured",
        message: expect.stringContaining("OPENAI_API_KEY"),
      });
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "error" });
    } finally {
      await bare.stop();
    }
  });
});

describe("with the openai-compatible client", () => {
  it("streams the server's reasoning_content as reasoning deltas, and fails a silent model after the idle timeout", async () => {
    const compatible = scriptedApp(model.url, {
      OPENAI_API_KEY: "",
      TOOLSMITH_MODEL_API: "compatible",
      TOOLSMITH_MODEL_TIMEOUT_MS: "1000",
    });
    await compatible.start();
    try {
      const client = new Api(compatible.url);
      model.script("Think first.", [{ reasoning: "Let me think this through.", text: "Thought." }]);
      const events = await client.run((await client.createConversation()).id, "Think first.");
      expect(
        ofType(events, "reasoning_delta")
          .map((event) => event.delta)
          .join(""),
      ).toBe("Let me think this through.");
      expect(events.findIndex((event) => event.data.type === "reasoning_delta")).toBeLessThan(
        events.findIndex((event) => event.data.type === "text_delta"),
      );

      model.script("Say nothing.", [{ stallMs: 3000 }]);
      const started = performance.now();
      const silent = await client.run((await client.createConversation()).id, "Say nothing.");
      expect(ofType(silent, "error")[0]).toMatchObject({ message: expect.stringContaining("nothing for 1000 ms") });
      expect(silent.at(-1)!.data).toMatchObject({ status: "error" });
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      await compatible.stop();
    }
  });
});

describe("bad requests", () => {
  it("answers 400, 404, 409 and 413 with a JSON message", async () => {
    const conversation = await api.createConversation();
    const post = (body: string, id = conversation.id) =>
      api.fetch(`/api/conversations/${id}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
    const expectError = async (response: Response, status: number, text: RegExp) => {
      expect(response.status).toBe(status);
      const body = await response.json();
      expect(body.error.message).toMatch(text);
    };

    await expectError(await post("not json"), 400, /must be JSON/);
    await expectError(await post("{}"), 400, /content/);
    await expectError(await post('{"content": "   "}'), 400, /empty/);
    await expectError(await post(JSON.stringify({ content: "x".repeat(40_000) })), 413, /limit/);
    await expectError(await post(JSON.stringify({ content: "x".repeat(300_000) })), 413, /KB/);
    await expectError(await post('{"content": "hi"}', "no-such-id"), 404, /not found/);
    await expectError(await api.fetch("/api/conversations/no-such-id"), 404, /not found/);
    await expectError(await api.fetch(`/api/conversations/${conversation.id}/events?after=abc`), 400, /whole number/);
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3000000000`),
      400,
      /from 0 to 2147483647/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3&segment=-1`),
      400,
      /segment/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3&segmentToken=abc`),
      400,
      /comes with \?segment/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3&segment=1&segmentToken=${"x".repeat(65)}`),
      400,
      /segmentToken/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3&segment=4&segmentToken=abc`),
      400,
      /the last one the client has/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/events?after=3&segment=0&segmentToken=abc`),
      400,
      /from 1/,
    );
    await expectError(
      await api.fetch(`/api/conversations/${conversation.id}/cancel`, { method: "POST" }),
      409,
      /No run/,
    );

    const prompt = "Stall for the conflict test.";
    model.script(prompt, [{ stallMs: 1500 }]);
    const first = await post(JSON.stringify({ content: prompt }));
    await expectError(await post(JSON.stringify({ content: "second" })), 409, /active/);
    await expectError(await api.fetch(`/api/conversations/${conversation.id}`, { method: "DELETE" }), 409, /cancel/);
    await readAll(first);
    // nothing was lost: only the first message was stored
    const stored = await api.conversation(conversation.id);
    expect(stored.messages.filter((message: { role: string }) => message.role === "user")).toHaveLength(1);

    expect((await api.fetch(`/api/conversations/${conversation.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api.fetch(`/api/conversations/${conversation.id}`)).status).toBe(404);
  });

  it("lists conversations newest first, a page at a time", async () => {
    const lister = new Api(app.url);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await lister.createConversation()).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { conversations: { id: string }[]; nextCursor: string | null } = await (
        await lister.fetch(`/api/conversations?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
      ).json();
      expect(page.conversations.length).toBeLessThanOrEqual(2);
      seen.push(...page.conversations.map((conversation) => conversation.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(created.reverse());
    expect((await lister.fetch("/api/conversations?limit=500")).status).toBe(400);
    expect(await (await fetch(`${app.url}/api/health`)).json()).toMatchObject({
      status: "ok",
      sandbox: { threads: expect.any(Number) },
    });
  });
});

function readAll(response: Response) {
  return readSse(response);
}
