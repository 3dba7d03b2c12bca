import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, sqlClient } from "../support/database";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let alice: Api;
let bob: Api;
let conversationId: string;

const shout = (code: string) => ({
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code,
});
const LOUD = "function run({ text }) { return text.toUpperCase() + '!'; }";
const QUIET = "function run({ text }) { return text.toLowerCase() + '.'; }";
const REVIEWS = ["annotation_added", "annotation_deleted", "verdict_added"];

interface Event {
  id: number;
  type: string;
  runId: string;
  step?: number;
  name?: string;
  status?: string;
  steps?: number;
}
interface Trace {
  events: Event[];
  messages: { role: string; content: string; runId: string }[];
  tools: { name: string; version: number; status: string; id: string }[];
  runs: { id: string; status: string; steps: number; finishedAt: string | null }[];
}

/** An annotation on a card and a verdict on its run, through the review routes, which write them into the log. */
async function review(conversation: string, runId: string, eventId: number): Promise<void> {
  const post = (path: string, body: unknown) =>
    alice.fetch(`/api/conversations/${conversation}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  expect((await post("annotations", { eventId, label: "bad input", note: "Too loud." })).status).toBe(201);
  expect((await post("verdicts", { runId, verdict: "down" })).status).toBe(201);
}

const fork = (api: Api, path: string, body?: unknown) =>
  api.fetch(path, {
    method: "POST",
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
const trace = async (api: Api, id: string): Promise<Trace> => api.conversation(id);
const types = (events: Event[]) => events.map((event) => event.type);
const find = (events: Event[], test: (event: Event) => boolean) => events.find(test)!;

let source: Trace;
let run1: string;
let run2: string;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, {}, databaseUrl);
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
  model.script("Make a shout tool and use it.", [
    { toolCalls: [{ name: "register_tool", args: shout(LOUD) }] },
    { text: "Shouting.", toolCalls: [{ name: "shout", args: { text: "hi" } }] },
    { text: "HI!" },
  ]);
  model.script("Make it quieter and use it again.", [
    { toolCalls: [{ name: "register_tool", args: shout(QUIET) }] },
    { toolCalls: [{ name: "shout", args: { text: "Again" } }] },
    { text: "again." },
  ]);
  conversationId = (await alice.createConversation()).id;
  await alice.run(conversationId, "Make a shout tool and use it.");
  let events = (await trace(alice, conversationId)).events;
  run1 = events[0].runId;
  // Reviews in the middle of the log: a fork drops them and numbers what follows without a gap.
  await review(conversationId, run1, find(events, (e) => e.type === "step_started" && e.step === 2).id);
  await alice.run(conversationId, "Make it quieter and use it again.");
  events = (await trace(alice, conversationId)).events;
  run2 = events.at(-1)!.runId;
  await review(conversationId, run2, find(events, (e) => e.runId === run2 && e.type === "tool_call").id);
  source = await trace(alice, conversationId);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

/** The source's events as a fork numbers them: without the reviews, 1, 2, 3 … */
const withoutReviews = (events: Event[]) => events.filter((event) => !REVIEWS.includes(event.type));

describe("continue from here", () => {
  it("copies up to the end of a call's step in the second run, closes that run, and keeps the tools registered so far", async () => {
    const call = find(source.events, (e) => e.runId === run2 && e.type === "tool_call" && e.name === "shout");
    const response = await fork(alice, `/api/conversations/${conversationId}/fork`, { eventId: call.id });
    expect(response.status).toBe(201);
    const { id, title, url } = await response.json();
    expect(url).toBe(`/c/${id}`);
    expect(title).toBe("Make a shout tool and use it.".slice(0, title.length));

    const copy = await trace(alice, id);
    const kept = withoutReviews(source.events);
    const end = kept.findIndex((e) => e.runId === run2 && e.type === "step_finished" && e.step === 2);
    expect(types(copy.events)).toEqual([...types(kept.slice(0, end + 1)), "run_finished"]);
    expect(copy.events.map((event) => event.id)).toEqual(copy.events.map((_, index) => index + 1));
    expect(copy.events.at(-1)).toMatchObject({ type: "run_finished", status: "cancelled", steps: 2 });
    expect(copy.runs.map((run) => [run.status, run.steps])).toEqual([
      ["completed", 3],
      ["cancelled", 2],
    ]);
    expect(copy.runs[1].finishedAt).not.toBeNull();
    // The user's messages of both runs; the answer of the first only, the second being cut before its answer.
    expect(copy.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Make a shout tool and use it."],
      ["assistant", "HI!"],
      ["user", "Make it quieter and use it again."],
    ]);
    expect(copy.tools.map((tool) => [tool.name, tool.version, tool.status])).toEqual([
      ["shout", 1, "superseded"],
      ["shout", 2, "active"],
    ]);
    expect(new Set(copy.runs.map((run) => run.id))).toEqual(new Set(copy.events.map((event) => event.runId)));

    // It goes on from there with the tool of the second run, numbered after the copy.
    model.script("Once more, quietly.", [{ toolCalls: [{ name: "shout", args: { text: "MORE" } }] }, { text: "ok" }]);
    const more = await alice.run(id, "Once more, quietly.");
    expect(ofType(more, "tool_result")[0]).toMatchObject({ name: "shout", ok: true, output: "more." });
    expect(more[0].id).toBe(copy.events.length + 1);

    const database = await sqlClient(databaseUrl);
    const rows = await database.query<{ forkedFromId: string }>(
      `SELECT "forkedFromId" FROM "Conversation" WHERE "id" = ?`,
      id,
    );
    await database.close();
    expect(rows).toEqual([{ forkedFromId: conversationId }]);
    expect(await trace(alice, conversationId)).toEqual(source);
  });

  it("from a step of the first run: that run only, cut after the step, with the tools registered by then", async () => {
    const step = find(source.events, (e) => e.runId === run1 && e.type === "step_started" && e.step === 2);
    const response = await fork(alice, `/api/conversations/${conversationId}/fork`, { eventId: step.id });
    const copy = await trace(alice, (await response.json()).id);
    expect(types(copy.events).at(-2)).toBe("step_finished");
    expect(copy.events.at(-1)).toMatchObject({ type: "run_finished", status: "cancelled", steps: 2 });
    expect(new Set(copy.events.map((event) => event.runId)).size).toBe(1);
    expect(copy.messages.map((m) => m.role)).toEqual(["user"]);
    expect(copy.tools.map((tool) => [tool.version, tool.status])).toEqual([[1, "active"]]);
    expect(types(copy.events).filter((type) => REVIEWS.includes(type))).toEqual([]);
  });

  it("takes a run whole from its last step, answer included", async () => {
    const last = source.events.findLast((e) => e.runId === run1 && e.type === "step_started")!;
    const copy = await trace(
      alice,
      (await (await fork(alice, `/api/conversations/${conversationId}/fork`, { eventId: last.id })).json()).id,
    );
    expect(types(copy.events)).toEqual(
      types(source.events.filter((e) => e.runId === run1 && !REVIEWS.includes(e.type))),
    );
    expect(copy.runs.map((run) => run.status)).toEqual(["completed"]);
    expect(copy.messages.map((m) => m.content)).toEqual(["Make a shout tool and use it.", "HI!"]);
  });

  it("forks a whole conversation without its reviews, numbered without gaps", async () => {
    const response = await fork(alice, `/api/conversations/${conversationId}/fork`);
    expect(response.status).toBe(201);
    const copy = await trace(alice, (await response.json()).id);
    expect(types(copy.events)).toEqual(types(withoutReviews(source.events)));
    expect(copy.events.map((event) => event.id)).toEqual(copy.events.map((_, index) => index + 1));
    expect(copy.messages).toHaveLength(4);
    expect(copy.tools.map((tool) => tool.status)).toEqual(["superseded", "active"]);
  });

  it("lets a link holder continue from a step into their own chats, and nobody else", async () => {
    const { token } = await (
      await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })
    ).json();
    const step = find(source.events, (e) => e.runId === run1 && e.type === "step_started" && e.step === 1);
    const response = await fork(bob, `/api/share/${token}/fork`, { eventId: step.id });
    expect(response.status).toBe(201);
    const { id } = await response.json();
    expect((await trace(bob, id)).events.at(-1)).toMatchObject({ type: "run_finished", status: "cancelled", steps: 1 });
    expect((await alice.fetch(`/api/conversations/${id}`)).status).toBe(404);
    // The owner's route is the owner's only.
    expect((await fork(bob, `/api/conversations/${conversationId}/fork`, { eventId: step.id })).status).toBe(404);
    expect((await fork(new Api(app.url), `/api/share/not-a-token/fork`, { eventId: step.id })).status).toBe(404);
  });

  it("answers a bad eventId with a clear 400 or 404, and copies nothing", async () => {
    const path = `/api/conversations/${conversationId}/fork`;
    const before = (await (await alice.fetch("/api/conversations")).json()).conversations.length;
    const runStarted = find(source.events, (e) => e.type === "run_started");
    const delta = find(source.events, (e) => e.type === "text_delta");
    for (const [body, status, message] of [
      [{ eventId: "7" }, 400, /eventId/],
      [{ eventId: 1.5 }, 400, /whole number/],
      [{ eventId: 0 }, 400, /at least 1/],
      [{ eventId: 2 ** 31 }, 400, /at most/],
      [{ eventId: 1, extra: true }, 400, /extra/],
      [{ eventId: runStarted.id }, 404, new RegExp(`event id ${runStarted.id}`)],
      [{ eventId: delta.id }, 404, /step or tool call/],
      [{ eventId: 99_999 }, 404, /step or tool call/],
    ] as const) {
      const response = await fork(alice, path, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await response.json()).error.message).toMatch(message);
    }
    const notJson = await alice.fetch(path, { method: "POST", headers: { "content-type": "text/plain" }, body: "1" });
    expect(notJson.status).toBe(415);
    expect((await (await alice.fetch("/api/conversations")).json()).conversations).toHaveLength(before);
  });

  it("continues from a finished step of a run still in progress; a whole fork waits for it", async () => {
    model.script("Work slowly.", [
      { toolCalls: [{ name: "shout", args: { text: "first" } }] },
      { deltas: 400, delayMs: 10 },
    ]);
    const id = (await alice.createConversation()).id;
    const stream = alice.send(id, "Work slowly.");
    let step1: Event | undefined;
    for (let attempt = 0; attempt < 200 && !step1; attempt++) {
      const events = (await trace(alice, id)).events;
      if (events.some((e) => e.type === "step_started" && e.step === 2))
        step1 = find(events, (e) => e.type === "step_started" && e.step === 1);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await fork(alice, `/api/conversations/${id}/fork`)).status).toBe(409);
    const response = await fork(alice, `/api/conversations/${id}/fork`, { eventId: step1!.id });
    expect(response.status).toBe(201);
    const forkId = (await response.json()).id;
    const copy = await trace(alice, forkId);
    expect(types(copy.events).slice(-2)).toEqual(["step_finished", "run_finished"]);
    expect(copy.runs.map((run) => run.status)).toEqual(["cancelled"]);

    // The copy has no running run: it takes a message at once, while the original still runs.
    model.script("And now?", [{ text: "Now this." }]);
    expect(ofType(await alice.run(forkId, "And now?"), "run_finished")).toMatchObject([{ status: "completed" }]);
    await alice.fetch(`/api/conversations/${id}/cancel`, { method: "POST" });
    await readSse(await stream);
  });
});
