import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_THOUGHT_CHARS } from "@/lib/tools/native/think";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  // No profiles file: the built-in default profile.
  app = scriptedApp(model.url);
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const PLAN = "1. No tool counts words: write word_count.\n2. Examples: 'a b' gives 2, '' gives 0.";

describe("think, the planning tool", () => {
  it("is offered by default and told of in the system prompt; a plan is acknowledged, changes nothing, and the run goes on", async () => {
    const prompt = "Plan first, then add 2 and 3.";
    model.script(prompt, [
      {
        toolCalls: [
          { name: "think", args: { thought: PLAN } },
          { name: "think", args: { thought: "x".repeat(MAX_THOUGHT_CHARS + 1) } },
        ],
      },
      { toolCalls: [{ name: "calculate", args: { expression: "2 + 3" } }] },
      { text: "It is 5." },
    ]);
    const { id } = await api.createConversation();
    const events = await api.run(id, prompt);

    const [first] = model.requestsFor(prompt);
    const offered = first.tools!.find((tool) => tool.function.name === "think");
    expect(offered?.function).toMatchObject({
      description: expect.stringContaining("before writing a tool"),
      parameters: { properties: { thought: { type: "string", maxLength: MAX_THOUGHT_CHARS } } },
    });
    expect(first.messages[0]).toMatchObject({
      role: "system",
      content: expect.stringContaining("plan one with think"),
    });

    // Calls of a step run in parallel: each result, in the order of the calls.
    const results = ofType(events, "tool_result");
    const [planned, overlong, calculated] = ofType(events, "tool_call").map((call) =>
      results.find((result) => result.callId === call.callId),
    );
    expect(planned).toMatchObject({ name: "think", ok: true, output: "Noted.", step: 1 });
    // A plan too long is the call's result, which the model reads; it stops nothing.
    expect(overlong).toMatchObject({
      name: "think",
      ok: false,
      error: expect.stringContaining(`at most ${MAX_THOUGHT_CHARS} characters`),
    });
    expect(JSON.stringify(model.requestsFor(prompt)[1].messages)).toContain("Noted.");
    expect(calculated).toMatchObject({ name: "calculate", ok: true, output: 5, step: 2 });
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed", steps: 3 });

    // Nothing was made or stored by it, but the call itself, audited like every call.
    expect((await api.conversation(id)).tools).toEqual([]);
    const { entries } = await (await api.fetch(`/api/audit?tool=think`)).json();
    expect(entries.map((entry: { decision: string; outcome: string | null }) => entry.outcome)).toEqual(
      expect.arrayContaining(["succeeded", null]),
    );
  });

  it("exports the plan as a quote in Markdown", async () => {
    const prompt = "Plan, then stop.";
    model.script(prompt, [{ toolCalls: [{ name: "think", args: { thought: PLAN } }] }, { text: "Planned." }]);
    const { id } = await api.createConversation();
    await api.run(id, prompt);
    const markdown = await (await api.fetch(`/api/conversations/${id}/export?format=md`)).text();
    expect(markdown).toContain(`📝 **Plan**\n\n> ${PLAN.replace("\n", "\n> ")}\n`);
    expect(markdown).not.toContain("**Tool call `think`**");
  });
});
