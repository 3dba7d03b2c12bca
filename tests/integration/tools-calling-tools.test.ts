import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const tool = (name: string, code: string) => ({
  name,
  description: `The ${name} tool.`,
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code,
});
const SHOUT = tool("shout", "function run({ text }) { return text.toUpperCase() + '!'; }");
const GREET = {
  ...tool(
    "greet",
    "async function run({ text }) { const loud = await tools.call('shout', { text: 'hello ' + text }); return { greeting: loud }; }",
  ),
  // Its examples call shout too, before it is accepted.
  examples: [{ input: { text: "bo" }, expected_output: { greeting: "HELLO BO!" } }],
  uses: ["shout"],
};
const calling = (name: string, callee: string) => ({
  ...tool(name, `async function run({ text }) { return tools.call('${callee}', { text }); }`),
  uses: [callee],
});
// Python calls without await; its examples call shout too. python_shout is called by JavaScript and by Python.
const PYTHON_SHOUT = {
  ...tool("python_shout", "def run(inputs):\n    return inputs['text'].upper() + '?'\n"),
  language: "python",
};
const PYTHON_GREET = {
  ...tool(
    "python_greet",
    "def run(inputs):\n    loud = tools.call('shout', {'text': 'hello ' + inputs['text']})\n" +
      "    asked = tools.call('python_shout', {'text': inputs['text']})\n" +
      "    try:\n        tools.call('python_shout', {})\n    except tools.ToolCallError as error:\n" +
      "        return {'greeting': loud, 'asked': asked, 'refused': str(error)[:30]}\n",
  ),
  language: "python",
  examples: [
    {
      input: { text: "bo" },
      expected_output: { greeting: "HELLO BO!", asked: "BO?", refused: "Invalid input for python_shout" },
    },
  ],
  uses: ["shout", "python_shout"],
};

const model = new ModelServer();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("tools that call tools (tools.call)", () => {
  it("runs a library tool from another's code, through the one path, shown under its caller", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make shout, then greet that uses it, and greet Ada.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: SHOUT }] },
      { toolCalls: [{ name: "register_tool", args: GREET }] },
      { toolCalls: [{ name: "greet", args: { text: "ada" } }] },
      { text: "HELLO ADA!" },
    ]);
    const events = await api.run(id, prompt);
    const views = ofType(events, "tool_registered").map((event) => event.tool as { name: string; uses: string[] });
    expect(views.map((view) => [view.name, view.uses])).toEqual([
      ["shout", []],
      ["greet", ["shout"]],
    ]);
    const greet = ofType(events, "tool_result").find((result) => result.name === "greet")!;
    expect(greet).toMatchObject({ ok: true, output: { greeting: "HELLO ADA!" } });
    // greet's example called shout under register_tool; its call by the model, under greet.
    const [example, inner] = ofType(events, "nested_tool_call");
    expect(example).toMatchObject({ name: "shout", input: { text: "hello bo" } });
    expect(inner).toMatchObject({ name: "shout", parentCallId: greet.callId, input: { text: "hello ada" } });
    expect(ofType(events, "nested_tool_result").at(-1)).toMatchObject({
      name: "shout",
      callId: inner.callId,
      ok: true,
      output: "HELLO ADA!",
    });
    // The model sees its own calls only.
    const lastRequest = JSON.stringify(model.requests.at(-1));
    expect(lastRequest).not.toContain(inner.callId as string);

    // The stored trace shows it under its caller; the audit log has both calls, the inner first.
    const trace = await (await api.fetch(`/api/conversations/${id}`)).json();
    const stored = (trace.events as { type: string; callId: string; parentCallId?: string }[]).filter(
      (event) => event.parentCallId === greet.callId,
    );
    expect(stored).toMatchObject([
      { type: "nested_tool_call", name: "shout", callId: inner.callId },
      { type: "nested_tool_result", name: "shout", callId: inner.callId, ok: true, output: "HELLO ADA!" },
    ]);
    const audit = await (await api.fetch("/api/audit")).json();
    expect(audit.entries.slice(0, 2).map((entry: { tool: string }) => entry.tool)).toEqual(["greet", "shout"]);
  });

  it("runs a Python tool's tools.call through the same path: a JavaScript tool, a Python one, a refusal", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make shout and python_shout, then python_greet that uses them, and greet Ada.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: SHOUT }] },
      { toolCalls: [{ name: "register_tool", args: PYTHON_SHOUT }] },
      { toolCalls: [{ name: "register_tool", args: PYTHON_GREET }] },
      { toolCalls: [{ name: "python_greet", args: { text: "ada" } }] },
      { text: "HELLO ADA!" },
    ]);
    const events = await api.run(id, prompt);
    const greet = ofType(events, "tool_result").find((result) => result.name === "python_greet")!;
    expect(greet).toMatchObject({
      ok: true,
      output: { greeting: "HELLO ADA!", asked: "ADA?", refused: "Invalid input for python_shout" },
    });
    const inner = ofType(events, "nested_tool_result").filter((result) => result.parentCallId === greet.callId);
    expect(inner).toMatchObject([
      { name: "shout", ok: true, output: "HELLO ADA!" },
      { name: "python_shout", ok: true, output: "ADA?" },
      { name: "python_shout", ok: false },
    ]);
  });

  it("refuses uses that name the tool itself or no tool, before anything is stored", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make tools that use what is not there.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: calling("loop", "loop") }] },
      { toolCalls: [{ name: "register_tool", args: calling("lost", "nowhere") }] },
      { toolCalls: [{ name: "register_tool", args: calling("shell", "run_command") }] },
      { text: "None were made." },
    ]);
    const events = await api.run(id, prompt);
    expect(ofType(events, "tool_result").map((result) => result.error)).toEqual([
      "Invalid uses: loop may not call itself.",
      expect.stringContaining("nowhere: no tool you can call has this name. Register it first"),
      "Invalid uses: run_command: a built-in this profile does not allow.",
    ]);
    expect(ofType(events, "tool_registered")).toEqual([]);
  });

  it("refuses a cycle made through versions (ping → pong → ping), and the run goes on", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make ping and pong call each other, then ping.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: tool("ping", "function run({ text }) { return text; }") }] },
      { toolCalls: [{ name: "register_tool", args: calling("pong", "ping") }] },
      { toolCalls: [{ name: "register_tool", args: calling("ping", "pong") }] },
      { toolCalls: [{ name: "ping", args: { text: "x" } }] },
      { text: "It refused to loop." },
    ]);
    const events = await api.run(id, prompt);
    const ping = ofType(events, "tool_result").find((result) => result.name === "ping")!;
    expect(ping).toMatchObject({ ok: false, error: expect.stringContaining("ping → pong → ping is a cycle") });
    expect(events.at(-1)?.data.status).toBe("completed");
  });

  it("runs the examples of the tools that use a tool again when it gets a new version, and reports failures", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make shout and greet, then make shout quiet.";
    const quiet = tool("shout", "function run({ text }) { return text; }");
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: SHOUT }] },
      { toolCalls: [{ name: "register_tool", args: GREET }] },
      { toolCalls: [{ name: "register_tool", args: quiet }] },
      { text: "greet now fails." },
    ]);
    const events = await api.run(id, prompt);
    const registered = ofType(events, "tool_registered");
    expect(registered.at(-1)!.tool).toMatchObject({
      name: "shout",
      version: 2,
      dependents: [
        {
          name: "greet",
          version: 1,
          passed: false,
          failures: [{ input: { text: "bo" }, actual_output: { greeting: "hello bo" }, passed: false }],
        },
      ],
    });
    // The model reads which tools now fail, and how.
    const result = ofType(events, "tool_result").at(-1)!;
    expect(result.output).toMatchObject({
      version: 2,
      dependents: [{ name: "greet", passed: false, failed: 1 }],
      message: expect.stringContaining("Tools that use it now fail their examples: greet (1 failing)"),
    });
  });
});

describe("tools that call tools through the REST API", () => {
  const create = (body: object) => sendJson(api, "/api/tools", "POST", body);

  it("registers, runs and tests a tool whose code calls another, shows who uses it, and reports dependents", async () => {
    const shout = await create({ ...SHOUT, name: "api_shout" });
    expect(shout.status).toBe(201);
    const greetBody = {
      ...GREET,
      name: "api_greet",
      code: GREET.code.replace("'shout'", "'api_shout'"),
      uses: ["api_shout"],
    };
    const greet = await create(greetBody);
    expect(greet.status).toBe(201);
    const greetId = (await greet.json()).id;

    const run = await sendJson(api, `/api/tools/${greetId}/execute`, "POST", { input: { text: "api" } });
    expect(await run.json()).toMatchObject({ ok: true, output: { greeting: "HELLO API!" } });
    const test = await api.fetch(`/api/tools/${greetId}/test`, { method: "POST" });
    expect(await test.json()).toMatchObject({ passed: true });

    const shoutView = await (await api.fetch(`/api/tools/${(await shout.json()).id}`)).json();
    expect(shoutView).toMatchObject({ name: "api_shout", uses: [], usedBy: ["api_greet"] });

    const quieter = await create({ ...tool("api_shout", "function run({ text }) { return text; }") });
    expect(quieter.status).toBe(201);
    const quieterTool = await quieter.json();
    expect(quieterTool.dependents).toMatchObject([{ name: "api_greet", passed: false }]);

    // A used tool cannot be deleted from under its users (nor through SEAT); once they are gone, it can.
    const refused = await api.fetch(`/api/tools/${quieterTool.id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: { code: "tool_in_use", message: expect.stringContaining("api_greet calls api_shout") },
    });
    expect((await api.fetch(`/api/tools/${greetId}`, { method: "DELETE" })).status).toBe(204);
    expect((await api.fetch(`/api/tools/${quieterTool.id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("answers 422 for uses naming no tool", async () => {
    const response = await create({ ...tool("api_lost", "function run() { return 1; }"), uses: ["nowhere"] });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      error: { code: "tool_uses", message: expect.stringContaining("nowhere") },
    });
  });
});
