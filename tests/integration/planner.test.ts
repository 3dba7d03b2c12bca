import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType } from "../support/api";
import { listed, SALES, sendWithFiles, uploaded } from "../support/files";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer, type ChatRequest } from "../support/model-server";
import { readSse } from "../support/sse";

// A profile that plans first by default, beside one that does not (the default).
const CONFIG = `profiles:
  - name: plain
    tools: [calculate]
  - name: planning
    tools: [calculate]
    planner: true
default_profile: plain
`;

const model = new ModelServer();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  const config = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(config, CONFIG);
  app = scriptedApp(model.url, { TOOLSMITH_CONFIG: config, TOOLSMITH_MAX_STEPS: "3" });
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const toolsOf = (request: ChatRequest) => (request.tools ?? []).map((tool) => tool.function.name);
const systemOf = (request: ChatRequest) => String(request.messages[0].content);
const PLAN_EVENTS = ["plan_created", "plan_updated"];

async function rerun(id: string, runId: string, body: unknown, caller = api): Promise<Response> {
  return caller.fetch(`/api/conversations/${id}/runs/${runId}/rerun`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("plan first", () => {
  it("offers plan alone and forces it, then update_plan beside the run's tools; both events carry the whole plan", async () => {
    const prompt = "Plan, then add 2 and 3.";
    model.script(prompt, [
      { toolCalls: [{ name: "plan", args: { steps: [{ title: "Add" }, { title: "Answer", detail: "In words" }] } }] },
      {
        toolCalls: [
          { name: "calculate", args: { expression: "2 + 3" } },
          { name: "update_plan", args: { updates: [{ id: "p1", status: "done" }] } },
        ],
      },
      { text: "It is 5." },
    ]);
    const { id } = await api.createConversation();
    const events = await api.run(id, prompt, { plan: true });

    const [planning, working] = model.requestsFor(prompt);
    expect(toolsOf(planning)).toEqual(["plan"]);
    expect(planning.tool_choice).toEqual({ type: "function", function: { name: "plan" } });
    expect(systemOf(planning)).toContain("planning step");
    expect(toolsOf(working).sort()).toEqual(expect.arrayContaining(["calculate", "update_plan"]));
    expect(toolsOf(working)).not.toContain("plan");

    expect(ofType(events, "run_started")[0]).toMatchObject({ plan: true });
    const [created] = ofType(events, "plan_created");
    expect(created).toMatchObject({
      step: 1,
      plan: {
        steps: [
          { id: "p1", title: "Add", status: "pending", step: 1 },
          { id: "p2", title: "Answer", detail: "In words", status: "pending", step: 1 },
        ],
      },
    });
    const [updated] = ofType(events, "plan_updated");
    expect(updated).toMatchObject({
      step: 2,
      plan: {
        steps: [
          { id: "p1", status: "done", step: 2 },
          { id: "p2", status: "pending" },
        ],
      },
    });
    expect(ofType(events, "run_finished")[0]).toMatchObject({ status: "completed" });

    // Markdown export: the plan as a checklist at the top of the run's section.
    const markdown = await (await api.fetch(`/api/conversations/${id}/export?format=md`)).text();
    const section = markdown.slice(markdown.indexOf("## Agent"));
    expect(section).toMatch(/^## Agent[^\n]*\n\n### Plan\n\n- \[x\] Add\n- \[ \] Answer — In words\n\n### Step 1/);
    // JSON export: the plan is in its events.
    const json = await (await api.fetch(`/api/conversations/${id}/export?format=json`)).json();
    expect(json.events.filter((event: { type: string }) => PLAN_EVENTS.includes(event.type))).toHaveLength(2);
  });

  it("answers a plan that breaks the schema with a readable error, and offers plan alone again", async () => {
    const prompt = "Plan badly first.";
    const many = Array.from({ length: 13 }, (_, index) => ({ title: `Step ${index + 1}` }));
    model.script(prompt, [
      { toolCalls: [{ name: "plan", args: { steps: [] } }] },
      { toolCalls: [{ name: "plan", args: { steps: many } }] },
      { toolCalls: [{ name: "plan", args: { steps: [{ title: "Only" }] } }] },
    ]);
    const { id } = await api.createConversation();
    const events = await api.run(id, prompt, { plan: true });
    const [empty, tooMany] = ofType(events, "tool_result");
    expect(empty).toMatchObject({ name: "plan", ok: false, error: expect.stringContaining("Invalid input for plan") });
    expect(tooMany).toMatchObject({ name: "plan", ok: false, error: expect.stringContaining("12") });
    const requests = model.requestsFor(prompt);
    expect(requests.slice(0, 3).map(toolsOf)).toEqual([["plan"], ["plan"], ["plan"]]);
    expect(ofType(events, "plan_created")).toHaveLength(1);
    // The three planning steps are the run's three steps: they count against TOOLSMITH_MAX_STEPS.
    expect(ofType(events, "run_finished")[0]).toMatchObject({ status: "max_steps", steps: 3 });
  });

  it("refuses an update of an item the plan does not have, naming the plan's ids", async () => {
    const prompt = "Plan, then update a missing item.";
    model.script(prompt, [
      { toolCalls: [{ name: "plan", args: { steps: [{ title: "One" }] } }] },
      { toolCalls: [{ name: "update_plan", args: { updates: [{ id: "p9", status: "done" }] } }] },
      { text: "Done." },
    ]);
    const { id } = await api.createConversation();
    const events = await api.run(id, prompt, { plan: true });
    const failed = ofType(events, "tool_result").find((result) => result.name === "update_plan");
    expect(failed).toMatchObject({ ok: false, error: expect.stringMatching(/no item p9; the plan's ids are p1/) });
    expect(ofType(events, "plan_updated")).toHaveLength(0);
  });

  it("offers neither tool without plan, or with plan: false", async () => {
    for (const options of [{}, { plan: false }]) {
      const prompt = `No plan ${JSON.stringify(options)}.`;
      model.script(prompt, [{ text: "Fine." }]);
      const { id } = await api.createConversation();
      const events = await api.run(id, prompt, options);
      const [request] = model.requestsFor(prompt);
      expect(toolsOf(request)).not.toContain("plan");
      expect(toolsOf(request)).not.toContain("update_plan");
      expect(systemOf(request)).not.toContain("planning step");
      expect(events.filter(({ data }) => PLAN_EVENTS.includes(data.type))).toEqual([]);
      expect(ofType(events, "run_started")[0].plan).toBeUndefined();
    }
  });

  it("plans first by default in a planner profile, and a message's plan: false wins", async () => {
    const { id } = await api.createConversation("planning");
    const planned = "A planner's request.";
    model.script(planned, [{ toolCalls: [{ name: "plan", args: { steps: [{ title: "Answer" }] } }] }, { text: "Ok." }]);
    expect(ofType(await api.run(id, planned), "run_started")[0]).toMatchObject({ plan: true });
    expect(toolsOf(model.requestsFor(planned)[0])).toEqual(["plan"]);

    const direct = "A planner told not to plan.";
    model.script(direct, [{ text: "Ok." }]);
    expect(ofType(await api.run(id, direct, { plan: false }), "run_started")[0].plan).toBeUndefined();
    expect(toolsOf(model.requestsFor(direct)[0])).not.toContain("plan");
  });

  it("keeps plan and update_plan from the library: 422 reserved_name", async () => {
    for (const name of ["plan", "update_plan"]) {
      const response = await api.fetch("/api/tools", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name,
          description: "Takes a name it may not have.",
          parameters_schema: { type: "object", properties: {} },
          code: "function run() { return 1; }",
        }),
      });
      expect(response.status).toBe(422);
      expect((await response.json()).error).toMatchObject({ code: "reserved_name" });
    }
  });
});

describe("a rerun in the other mode", () => {
  it("forks up to the run's message, runs it again there as asked, and links the compare page", async () => {
    const first = "Add 1 and 1.";
    const second = "Now add 2 and 2.";
    model.script(first, [{ text: "Two." }]);
    model.script(second, [{ text: "Four." }]);
    const { id } = await api.createConversation();
    await api.run(id, first);
    const secondEvents = await api.run(id, second);
    const runId = ofType(secondEvents, "run_started")[0].runId as string;
    model.script(second, [{ toolCalls: [{ name: "plan", args: { steps: [{ title: "Add" }] } }] }, { text: "4." }]);

    const response = await rerun(id, runId, { plan: true });
    expect(response.status).toBe(201);
    const answer = await response.json();
    expect(answer).toEqual({
      conversationId: expect.any(String),
      runId: expect.any(String),
      compareUrl: `/c/${id}/compare?a=${runId}&b=${answer.runId}`,
    });
    const events = await readSse(
      await api.events(answer.conversationId),
      ({ data }) => data.type === "run_finished" && data.runId === answer.runId,
    );
    const fork = await api.conversation(answer.conversationId);
    // The first run whole, then the second's message sent again (its answer is stored as its run ends).
    expect(fork.messages.slice(0, 3).map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ["user", first],
      ["assistant", "Two."],
      ["user", second],
    ]);
    const started = ofType(events, "run_started");
    expect(started.map(({ runId: id }) => id).at(-1)).toBe(answer.runId);
    expect(started.at(-1)).toMatchObject({ plan: true });
    expect(ofType(events, "plan_created")).toHaveLength(1);

    const compare = await api.fetch(answer.compareUrl);
    expect(compare.status).toBe(200);
    // Both runs with their figures; the rerun says it planned first.
    const html = await compare.text();
    expect(html.match(/data-testid="compare-run-figures"/g)).toHaveLength(2);
    expect(html).toContain("planned first");
    expect(html).toMatch(/2 steps · 1 tool call · [\d.]+ (ms|s) · 20 → 10 tokens/);
    expect((await new Api(app.url).fetch(answer.compareUrl)).status).toBe(404);
  });

  it("sends the run's files again with its message: the fork's copies, attached to the message sent again", async () => {
    const prompt = "Sum the amounts in the attached CSV.";
    model.script(prompt, [{ text: "49." }]);
    const { id } = await api.createConversation();
    const [sales] = await uploaded(api, id, [["sales.csv", SALES, "text/csv"]]);
    const events = await readSse(await sendWithFiles(api, id, prompt, [sales.id]));
    const runId = ofType(events, "run_started")[0].runId as string;

    const answer = await expectJson(await rerun(id, runId, { plan: false }), 201);
    await readSse(
      await api.events(answer.conversationId),
      ({ data }) => data.type === "run_finished" && data.runId === answer.runId,
    );
    const fork = await api.conversation(answer.conversationId);
    const resent = fork.messages.find((message: { role: string }) => message.role === "user");
    const [copy] = await listed(api, answer.conversationId);
    expect(copy).toMatchObject({ name: "sales.csv", size: sales.size, messageId: resent.id });
    expect(copy.id).not.toBe(sales.id);
    // The model read the message with its file, as it did the first time.
    const [again] = model.requestsFor(prompt).slice(-1);
    expect(JSON.stringify(again.messages)).toContain("sales.csv");
  });

  it("answers 404 for another's conversation or a run not in it, 400 for a bad body, 409 while the run runs", async () => {
    const prompt = "Take your time.";
    model.script(prompt, [{ stallMs: 3_000 }]);
    const { id } = await api.createConversation();
    const sending = api.send(id, prompt);
    const [started] = await readSse(await sending, ({ data }) => data.type === "run_started");
    const runId = started.data.runId;

    const running = await rerun(id, runId, { plan: true });
    expect(running.status).toBe(409);
    expect((await running.json()).error.message).toMatch(/in progress/);
    const bad = await rerun(id, runId, { plan: "yes" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain('{"plan": true}');
    expect((await rerun(id, "no-such-run", { plan: false })).status).toBe(404);
    expect((await rerun(id, runId, { plan: false }, new Api(app.url))).status).toBe(404);
  });
});
