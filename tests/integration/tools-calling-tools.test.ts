import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
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
};
const LOOP = tool("loop", "async function run({ text }) { return tools.call('loop', { text }); }");
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
      "    try:\n        tools.call('missing', {'text': 'x'})\n    except tools.ToolCallError as error:\n" +
      "        return {'greeting': loud, 'asked': asked, 'missing': str(error)[:22]}\n",
  ),
  language: "python",
  examples: [
    {
      input: { text: "bo" },
      expected_output: { greeting: "HELLO BO!", asked: "BO?", missing: "There is no tool named" },
    },
  ],
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
      output: { greeting: "HELLO ADA!", asked: "ADA?", missing: "There is no tool named" },
    });
    const inner = ofType(events, "nested_tool_result").filter((result) => result.parentCallId === greet.callId);
    expect(inner).toMatchObject([
      { name: "shout", ok: true, output: "HELLO ADA!" },
      { name: "python_shout", ok: true, output: "ADA?" },
      { name: "missing", ok: false },
    ]);
  });

  it("refuses a tool that calls itself, and the run goes on", async () => {
    const id = (await api.createConversation()).id;
    const prompt = "Make a loop tool and call it.";
    model.script(prompt, [
      { toolCalls: [{ name: "register_tool", args: LOOP }] },
      { toolCalls: [{ name: "loop", args: { text: "x" } }] },
      { text: "It refused to loop." },
    ]);
    const events = await api.run(id, prompt);
    const loop = ofType(events, "tool_result").find((result) => result.name === "loop")!;
    expect(loop).toMatchObject({ ok: false, error: expect.stringContaining("loop → loop is a cycle") });
    expect(events.at(-1)?.data.status).toBe("completed");
  });
});
