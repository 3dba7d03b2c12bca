// SEAT's flow through the real server: tools tested against their examples before they are accepted (from chat and
// from the API), written from a description with repairs, SEAT's own names, and scripts that must bring a token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

const model = new ModelServer();
/** The default dialect of a server that is not OpenAI: `compatible`, asked through a forced call of write_tool. */
let app: AppServer;
/** OpenAI's Chat Completions dialect, asked for a JSON-schema structured output; two attempts at most. */
let chatApp: AppServer;
let alice: Api;

const C_TO_F = {
  name: "celsius_to_fahrenheit",
  description: "Convert a temperature from Celsius to Fahrenheit.",
  parameters_schema: {
    type: "object",
    properties: { celsius: { type: "number", description: "Degrees Celsius." } },
    required: ["celsius"],
  },
  code: "function run({ celsius }) { return celsius * 9 / 5 + 32; }",
  examples: [
    { input: { celsius: 100 }, expected_output: 212 },
    { input: { celsius: 37.5 }, expected_output: 99.5 },
  ],
};
/** The same tool, rounding too early: 100 °C is right, 37.5 °C gives 100. */
const ROUNDS = { ...C_TO_F, code: "function run({ celsius }) { return Math.round(celsius * 9 / 5) + 32; }" };
/** The events of a tool written in two attempts: one failed and repaired. */
const REPAIRED_ONCE = [
  "attempt_started",
  "attempt_written",
  "attempt_failed",
  "attempt_started",
  "attempt_written",
  "tool_created",
];
const writeTool = (args: object) => ({ toolCalls: [{ name: "write_tool", args: args as Record<string, unknown> }] });

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  chatApp = scriptedApp(model.url, { TOOLSMITH_MODEL_API: "chat", TOOLSMITH_GENERATE_ATTEMPTS: "2" });
  await Promise.all([app.start(), chatApp.start()]);
  alice = new Api(app.url);
});
afterAll(async () => {
  await Promise.all([app?.stop(), chatApp?.stop()]);
  await model.stop();
});

const post = (client: Api, path: string, body: unknown, headers: Record<string, string> = {}) =>
  client.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
async function json(response: Response, status: number) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text ? JSON.parse(text) : null;
}

describe("a tool tested before it is trusted", () => {
  it("rejects a registration whose example fails, showing input, expected and actual output; the repair is accepted", async () => {
    const prompt = "Make me a Celsius to Fahrenheit tool, with examples.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: ROUNDS }] },
      { toolCalls: [{ name: "register_tool", args: C_TO_F }] },
      { text: "Registered and tested." },
    ]);
    const { id } = await alice.createConversation();
    const events = await alice.run(id, prompt);

    const [rejected, accepted] = ofType(events, "tool_result");
    expect(rejected).toMatchObject({ ok: false });
    expect(rejected.error).toContain("failed 1 of its 2 examples");
    expect(rejected.error).toContain('input {"celsius":37.5}: expected 99.5, got 100');
    expect(ofType(events, "tool_rejected")).toEqual([
      expect.objectContaining({
        name: "celsius_to_fahrenheit",
        violations: [],
        failures: [
          { input: { celsius: 100 }, expected_output: 212, passed: true, actual_output: 212 },
          { input: { celsius: 37.5 }, expected_output: 99.5, passed: false, actual_output: 100 },
        ],
      }),
    ]);
    // The model read the difference as the call's result.
    expect(JSON.stringify(model.requestsFor(prompt)[1].messages.at(-1))).toContain("expected 99.5, got 100");
    expect(accepted).toMatchObject({ ok: true });
    const [registered] = ofType(events, "tool_registered");
    expect(registered.tool).toMatchObject({ version: 1, examples: C_TO_F.examples });

    // The rejected attempt left no version: the accepted one is the first, and it is tested.
    const tool = await json(await alice.fetch(`/api/tools/${(registered.tool as { id: string }).id}`), 200);
    expect(tool).toMatchObject({ version: 1, tested: true, examples: C_TO_F.examples });
  });

  it("matches 0.1 + 0.2 with 0.3 and objects whose keys come in another order, and refuses a real difference", async () => {
    const sum = {
      name: "sum_pair",
      description: "Add two numbers and echo them.",
      parameters_schema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      code: "function run({ a, b }) { return { sum: a + b, inputs: [a, b] }; }",
      examples: [{ input: { a: 0.1, b: 0.2 }, expected_output: { inputs: [0.1, 0.2], sum: 0.3 } }],
    };
    const created = await json(await post(alice, "/api/tools", sum), 201);
    expect(created).toMatchObject({ tested: true, examples: sum.examples, version: 1 });

    const offByOne = {
      ...sum,
      examples: [{ input: { a: 1, b: 2 }, expected_output: { inputs: [1, 2], sum: 3.0001 } }],
    };
    const refused = await json(await post(alice, "/api/tools", offByOne), 422);
    expect(refused).toMatchObject({
      error: { code: "tool_examples", message: expect.stringContaining('expected {"inputs":[1,2],"sum":3.0001}') },
      failures: [{ passed: false, actual_output: { sum: 3, inputs: [1, 2] } }],
    });
    // Nothing was stored: the tool is still at its first version.
    expect((await json(await alice.fetch(`/api/tools/${created.id}`), 200)).version).toBe(1);
  });

  it("marks a tool without examples untested; a past call kept as an example makes it tested, and its examples run again", async () => {
    const bare = { ...C_TO_F, name: "bare_c_to_f", examples: undefined };
    const created = await json(await post(alice, "/api/tools", bare), 201);
    expect(created).toMatchObject({ tested: false, examples: [] });

    const ran = await json(await post(alice, `/api/tools/${created.id}/execute`, { input: { celsius: 100 } }), 200);
    expect(ran).toMatchObject({ ok: true, output: 212 });
    const { executions } = await json(await alice.fetch(`/api/tools/${created.id}/executions`), 200);
    const kept = await json(
      await post(alice, `/api/tools/${created.id}/examples`, { executionId: executions[0].id }),
      201,
    );
    expect(kept).toMatchObject({ tested: true, examples: [{ input: { celsius: 100 }, expected_output: 212 }] });
    // The same input twice is refused; so is an example the version does not pass.
    await json(await post(alice, `/api/tools/${created.id}/examples`, { executionId: executions[0].id }), 422);
    const wrong = await json(
      await post(alice, `/api/tools/${created.id}/examples`, { input: { celsius: 0 }, expected_output: 0 }),
      422,
    );
    expect(wrong).toMatchObject({ error: { code: "example_failed" }, failures: [{ actual_output: 32 }] });

    expect(await json(await post(alice, `/api/tools/${created.id}/test`, {}), 200)).toEqual({
      version: 1,
      passed: true,
      outcomes: [{ input: { celsius: 100 }, expected_output: 212, passed: true, actual_output: 212 }],
    });
    // Another identity's tool does not exist for Bob.
    const bob = new Api(app.url);
    await json(await post(bob, `/api/tools/${created.id}/test`, {}), 404);
    await json(await post(bob, `/api/tools/${created.id}/examples`, { executionId: executions[0].id }), 404);
    await json(await post(alice, `/api/tools/${created.id}/examples`, { executionId: "nope" }), 404);
  });
});

describe("a tool written from a description", () => {
  it("streams each attempt: the code, the failing example, the repair, and the created tool", async () => {
    const description = "Convert a temperature from Celsius to Fahrenheit, streamed with one repair.";
    model.script(description, [writeTool(ROUNDS), writeTool(C_TO_F)]);
    const events = await readSse(await post(alice, "/api/tools/generate", { description }));

    expect(events.map((event) => event.event)).toEqual(REPAIRED_ONCE);
    expect(events[0].data).toEqual({ type: "attempt_started", attempt: 1, of: 3 });
    expect(events[1].data).toMatchObject({ attempt: 1, tool: { code: ROUNDS.code } });
    expect(events[2].data).toMatchObject({
      attempt: 1,
      problem: "examples",
      failures: [{ passed: true }, { passed: false, actual_output: 100 }],
    });
    const created = events[5].data.tool as { id: string };
    expect(events[5].data).toMatchObject({ attempt: 2, tool: { name: C_TO_F.name, tested: true, scope: "library" } });

    // The repair request showed the model its failed attempt and why.
    const [, repair] = model.requestsFor(description);
    expect(JSON.stringify(repair.messages)).toContain("expected 99.5, got 100");
    expect(repair).toMatchObject({ tool_choice: { type: "function", function: { name: "write_tool" } } });
    expect(await json(await alice.fetch(`/api/tools/${created.id}`), 200)).toMatchObject({
      examples: C_TO_F.examples,
      code: C_TO_F.code,
    });
  });

  it("answers 422 with the last attempt's failures after the attempt limit, and stores nothing", async () => {
    const carol = new Api(app.url);
    const description = "A Celsius converter that never gets it right.";
    model.script(description, [writeTool(ROUNDS), writeTool(ROUNDS), writeTool(ROUNDS)]);
    const refused = await json(
      await post(carol, "/api/tools/generate", { description }, { accept: "application/json" }),
      422,
    );
    expect(refused).toMatchObject({
      error: { code: "tool_examples", message: expect.stringContaining("in 3 attempts") },
      attempts: 3,
      failures: [{ passed: true }, { passed: false, actual_output: 100 }],
    });
    expect(model.requestsFor(description)).toHaveLength(3);
    expect((await json(await carol.fetch("/api/tools"), 200)).tools).toEqual([]);
  });

  it("streams from POST /api/tools too, for a client that accepts text/event-stream", async () => {
    const description = "Convert Celsius to Fahrenheit, in SEAT's form, streamed.";
    model.script(description, [writeTool({ ...C_TO_F, name: "streamed_c_to_f" })]);
    const response = await post(alice, "/api/tools", { description }, { accept: "text/event-stream" });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(response);
    expect(events.map((event) => event.event)).toEqual(["attempt_started", "attempt_written", "tool_created"]);
  });

  it("refuses a built-in name before asking the model, and a description that is empty", async () => {
    const reserved = await json(await post(alice, "/api/tools/generate", { description: "x", name: "calculate" }), 422);
    expect(reserved.error.code).toBe("reserved_name");
    const empty = await json(await post(alice, "/api/tools", { description: " " }), 400);
    expect(empty.error.message).toBe("description: description must not be empty");
    expect(model.requestsFor("x")).toEqual([]);
  });

  it("answers 502, naming the model server's failure", async () => {
    const description = "A tool the model server cannot write.";
    model.script(description, [{ status: 500, body: JSON.stringify({ error: { message: "the GPU caught fire" } }) }]);
    const failed = await json(
      await post(alice, "/api/tools/generate", { description }, { accept: "application/json" }),
      502,
    );
    expect(failed.error.message).toMatch(/answered 500: the GPU caught fire/);
  });

  it("repairs an answer that is not a tool definition, and uses the name asked for", async () => {
    const description = "Count the words of a text.";
    const words = {
      name: "whatever",
      description: "Count the words of a text.",
      parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      code: "function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }",
      examples: [{ input: { text: "one two  three" }, expected_output: 3 }],
    };
    model.script(`${description}\n\nName the tool word_count.`, [writeTool({ name: "word_count" }), writeTool(words)]);
    const events = await readSse(await post(alice, "/api/tools/generate", { description, name: "word_count" }));
    expect(events[1].data).toMatchObject({
      problem: "output",
      message: expect.stringMatching(/not valid: description/),
    });
    expect(events.at(-1)!.data).toMatchObject({ type: "tool_created", tool: { name: "word_count" } });
  });

  it("asks OpenAI's chat dialect for a JSON-schema output, and repairs through a reply", async () => {
    const description = "Convert Celsius to Fahrenheit, as JSON.";
    const fenced = (tool: object) => ({ text: `Here it is:\n\`\`\`json\n${JSON.stringify(tool)}\n\`\`\`` });
    model.script(description, [fenced(ROUNDS), { text: JSON.stringify(C_TO_F) }]);
    const created = await json(await post(new Api(chatApp.url), "/api/tools", { description }), 201);
    expect(created).toMatchObject({ name: C_TO_F.name, tested: true });
    const [first, repair] = model.requests.filter((request) =>
      JSON.stringify(request.messages).includes(description),
    ) as unknown as Record<string, unknown>[];
    expect(first.response_format).toMatchObject({ type: "json_schema", json_schema: { strict: false } });
    expect(first.tools).toBeUndefined();
    expect(JSON.stringify(repair.messages)).toContain("expected 99.5, got 100");
  });
});

describe("a tool written from a description, in Python", () => {
  /** C_TO_F in Python: SEAT's own example, in its own language. */
  const PY_C_TO_F = {
    ...C_TO_F,
    name: "py_celsius_to_fahrenheit",
    code: 'def run(inputs):\n    return inputs["celsius"] * 9 / 5 + 32',
  };
  const PY_ROUNDS = { ...PY_C_TO_F, code: 'def run(inputs):\n    return round(inputs["celsius"] * 9 / 5) + 32' };

  it("asks for Python, repairs in Python, and stores a Python tool that runs", async () => {
    const description = "Convert a temperature from Celsius to Fahrenheit, in Python.";
    model.script(description, [writeTool(PY_ROUNDS), writeTool(PY_C_TO_F)]);
    const events = await readSse(await post(alice, "/api/tools/generate", { description, language: "python" }));

    expect(events.map((event) => event.event)).toEqual(REPAIRED_ONCE);
    expect(events[1].data).toMatchObject({ tool: { code: PY_ROUNDS.code, language: "python" } });
    expect(events[2].data).toMatchObject({ problem: "examples", failures: [{ passed: true }, { passed: false }] });
    const [first, repair] = model.requestsFor(description);
    for (const request of [first, repair]) {
      expect(request.messages[0]).toMatchObject({
        role: "system",
        content: expect.stringContaining("def run(inputs)"),
      });
    }
    expect(JSON.stringify(repair.messages)).toContain("expected 99.5, got 100");
    expect(JSON.stringify(repair.messages)).toContain("its code in Python");

    const created = events[5].data.tool as { id: string };
    expect(await json(await alice.fetch(`/api/tools/${created.id}`), 200)).toMatchObject({
      name: PY_C_TO_F.name,
      language: "python",
      code: PY_C_TO_F.code,
      tested: true,
    });
    const ran = await json(await post(alice, `/api/tools/${created.id}/execute`, { input: { celsius: 37.5 } }), 200);
    expect(ran).toMatchObject({ ok: true, output: 99.5 });
  });

  it("writes JavaScript when no language is given, and refuses a language it does not know, naming the two", async () => {
    const description = "Convert Celsius to Fahrenheit, language unsaid.";
    model.script(description, [writeTool({ ...C_TO_F, name: "unsaid_c_to_f" })]);
    const created = await json(await post(alice, "/api/tools", { description }, { accept: "application/json" }), 201);
    expect(created).toMatchObject({ name: "unsaid_c_to_f", code: C_TO_F.code });
    expect(model.requestsFor(description)[0].messages[0]).toMatchObject({
      content: expect.stringContaining("small JavaScript functions"),
    });

    for (const path of ["/api/tools/generate", "/api/tools"]) {
      const refused = await json(await post(alice, path, { description: "ruby, please", language: "ruby" }), 400);
      expect(refused.error.message).toBe('language: language must be "javascript" or "python"');
    }
    expect(model.requestsFor("ruby, please")).toEqual([]);
  });
});

describe("SEAT's README, as a script with a token and no cookie", () => {
  it("creates a tool from a description, executes it with input_data, lists, searches and reads its statistics", async () => {
    const token = (await json(await post(alice, "/api/tokens", { name: "seat script" }), 201)).token as string;
    const seat = (path: string, body?: unknown) =>
      fetch(`${app.url}/api${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const description = "Convert a temperature from Celsius to Fahrenheit";
    model.script(description, [writeTool({ ...C_TO_F, name: "seat_c_to_f" })]);

    const tool = await json(await seat("/tools", { description }), 201);
    expect(tool).toMatchObject({
      id: expect.any(String),
      code: C_TO_F.code,
      input_schema: C_TO_F.parameters_schema,
      statistics: { total_executions: 0, successful_executions: 0, failed_executions: 0 },
    });
    expect(await json(await seat(`/tools/${tool.id}/execute`, { input_data: { celsius: 100 } }), 200)).toMatchObject({
      success: true,
      output: 212,
      error: null,
      execution_time: expect.any(Number),
    });
    const listed = await json(await seat("/tools?status=active"), 200);
    expect(listed.tools.map((entry: { id: string }) => entry.id)).toContain(tool.id);
    const found = await json(await seat("/tools/search?q=temperature"), 200);
    expect(found.tools.map((entry: { id: string }) => entry.id)).toContain(tool.id);
    expect(await json(await seat(`/tools/${tool.id}`), 200)).toMatchObject({
      statistics: { total_executions: 1, successful_executions: 1, failed_executions: 0 },
    });
  });

  it("refuses a write that brings neither a cookie nor a token with 401 saying how to make a token; reads still work", async () => {
    for (const path of ["/api/tools", "/api/conversations", "/api/tools/generate"]) {
      const refused = await fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ description: "anything" }),
      });
      const body = await json(refused, 401);
      expect(body.error.message).toMatch(/Settings page \(\/settings\).*POST \/api\/tokens.*Bearer/);
    }
    const read = await fetch(`${app.url}/api/tools`);
    expect(read.status).toBe(200);
    expect(read.headers.getSetCookie().join()).toMatch(/toolsmith_id=/);
  });
});
