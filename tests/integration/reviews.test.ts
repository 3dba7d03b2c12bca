import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse, watchSse, type SseMessage } from "../support/sse";

/*
 * Reviewing a trace together: annotations and verdicts by the owner and by link holders, written into the
 * conversation's log and streamed live to everyone watching it, with the limits and checks a stranger meets.
 */

const model = new ModelServer();
let app: AppServer;
let alice: Api;
let bob: Api;
let conversationId: string;
let token: string;
/** The first run's cards: its steps' and its tool calls' event ids. */
let stepIds: number[];
let callIds: number[];
let runId: string;

const REVIEWS_PER_MINUTE = 40;

const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_RATE_REVIEWS_PER_MINUTE: String(REVIEWS_PER_MINUTE) });
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
  model.script("Add two and two.", [
    { toolCalls: [{ name: "calculate", args: { expression: "2 + 2" } }] },
    { text: "It is 4." },
  ]);
  conversationId = (await alice.createConversation()).id;
  const events = await alice.run(conversationId, "Add two and two.");
  stepIds = idsOf(events, "step_started");
  callIds = idsOf(events, "tool_call");
  runId = events[0].data.runId;
  ({ token } = await (await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })).json());
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

/** The conversation's stream as a viewer keeps it open after the run: every event the log gets next. */
const watchAfterRun = async (client: Api, path: string) => {
  const stream = watchSse(await client.fetch(`${path}/events?watch=1`));
  await expect.poll(() => stream.shown.some(({ data }) => data.type === "run_finished")).toBe(true);
  return stream;
};

/** The log ids of the events of a type: the cards they stand for. */
const idsOf = (events: SseMessage[], type: string) =>
  events.filter(({ data }) => data.type === type).map(({ id }) => id);

const lastOfType = (shown: SseMessage[], type: string) => shown.findLast(({ data }) => data.type === type)?.data;

describe("annotations", () => {
  it("from a link holder reach the owner live, signed Reviewer 1, and the owner's signed Owner", async () => {
    const owners = await watchAfterRun(alice, `/api/conversations/${conversationId}`);
    const viewers = await watchAfterRun(new Api(app.url), `/api/share/${token}`);

    const created = await bob.fetch(
      `/api/share/${token}/annotations`,
      post({ eventId: callIds[0], label: "bad input", note: "Should have asked for the units." }),
    );
    expect(created.status).toBe(201);
    const annotation = await created.json();
    expect(annotation).toMatchObject({
      eventId: callIds[0],
      runId,
      label: "bad input",
      note: "Should have asked for the units.",
      author: { name: "Reviewer 1" },
    });
    expect(Math.abs(annotation.at - Date.now())).toBeLessThan(60_000);
    for (const stream of [owners, viewers])
      await expect
        .poll(() => lastOfType(stream.shown, "annotation_added"))
        .toEqual({
          type: "annotation_added",
          annotation,
          runId,
          at: expect.any(Number),
        });

    const owner = await (
      await alice.fetch(
        `/api/conversations/${conversationId}/annotations`,
        post({ eventId: stepIds[1], label: "good" }),
      )
    ).json();
    expect(owner.author.name).toBe("Owner");
    expect(owner.author.key).not.toBe(annotation.author.key);
    await expect.poll(() => lastOfType(viewers.shown, "annotation_added")?.annotation).toEqual(owner);
    // The log's ids go on without a gap: the reviews are the log's, and a replay has them in the same order.
    const replayed = await readSse(await alice.events(conversationId));
    expect(replayed.map(({ id }) => id)).toEqual(replayed.map((_, index) => index + 1));
    expect(replayed.slice(-2).map(({ data }) => data.type)).toEqual(["annotation_added", "annotation_added"]);
  });

  it("are signed with the display name an identity chose, and numbered per conversation otherwise", async () => {
    const carol = new Api(app.url);
    expect(await (await carol.fetch("/api/display-name")).json()).toEqual({ name: "" });
    const named = await carol.fetch("/api/display-name", { ...post({ name: "  Carol  " }), method: "PUT" });
    expect(await named.json()).toEqual({ name: "Carol" });
    const signed = await (
      await carol.fetch(`/api/share/${token}/annotations`, post({ eventId: callIds[0], label: "wrong tool" }))
    ).json();
    expect(signed.author.name).toBe("Carol");
    const dave = await (
      await new Api(app.url).fetch(`/api/share/${token}/annotations`, post({ eventId: callIds[0], label: "good" }))
    ).json();
    expect(dave.author.name).toBe("Reviewer 2");
    expect((await carol.fetch("/api/display-name", { ...post({ name: "x".repeat(61) }), method: "PUT" })).status).toBe(
      400,
    );
  });

  it("can be deleted by their author and by the owner, by no one else, and the deletion streams", async () => {
    const owners = await watchAfterRun(alice, `/api/conversations/${conversationId}`);
    const mine = await (
      await bob.fetch(`/api/share/${token}/annotations`, post({ eventId: stepIds[0], label: "hallucinated" }))
    ).json();
    const stranger = new Api(app.url);
    expect((await stranger.fetch(`/api/share/${token}/annotations/${mine.id}`, { method: "DELETE" })).status).toBe(404);
    expect(
      (await stranger.fetch(`/api/conversations/${conversationId}/annotations/${mine.id}`, { method: "DELETE" }))
        .status,
    ).toBe(404);
    expect((await bob.fetch(`/api/share/${token}/annotations/${mine.id}`, { method: "DELETE" })).status).toBe(204);
    await expect.poll(() => lastOfType(owners.shown, "annotation_deleted")).toMatchObject({ annotationId: mine.id });
    expect((await bob.fetch(`/api/share/${token}/annotations/${mine.id}`, { method: "DELETE" })).status).toBe(404);

    const theirs = await (
      await bob.fetch(`/api/share/${token}/annotations`, post({ eventId: stepIds[0], label: "good" }))
    ).json();
    const byOwner = await alice.fetch(`/api/conversations/${conversationId}/annotations/${theirs.id}`, {
      method: "DELETE",
    });
    expect(byOwner.status).toBe(204);
    const owner = await (
      await alice.fetch(
        `/api/conversations/${conversationId}/annotations`,
        post({ eventId: stepIds[0], label: "good" }),
      )
    ).json();
    expect((await bob.fetch(`/api/share/${token}/annotations/${owner.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("refuses what is not a card, a label not offered, a long note, and strangers without an identity", async () => {
    const refused = async (body: unknown, status: number, message: RegExp) => {
      const response = await bob.fetch(`/api/share/${token}/annotations`, post(body));
      expect(response.status).toBe(status);
      expect((await response.json()).error.message).toMatch(message);
    };
    const finished = (await readSse(await alice.events(conversationId))).find(
      ({ data }) => data.type === "run_finished",
    )!;
    await refused({ eventId: finished.id, label: "good" }, 404, /step or tool call with event id/);
    await refused({ eventId: 999_999, label: "good" }, 404, /event id 999999/);
    await refused({ eventId: callIds[0], label: "meh" }, 400, /wrong tool, bad input, hallucinated, good/);
    await refused({ eventId: callIds[0], label: "good", note: "x".repeat(1001) }, 400, /at most 1000/);
    await refused({ eventId: "1", label: "good" }, 400, /eventId/);
    const anonymous = await fetch(
      `${app.url}/api/share/${token}/annotations`,
      post({ eventId: callIds[0], label: "good" }),
    );
    expect(anonymous.status).toBe(401);
  });

  it("are refused through a revoked link (404), and the owner's go on", async () => {
    const id = (await alice.createConversation()).id;
    model.script("Say hi.", [{ text: "hi" }]);
    const events = await alice.run(id, "Say hi.");
    const { token: revoked } = await (await alice.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const [step] = idsOf(events, "step_started");
    expect((await bob.fetch(`/api/share/${revoked}/annotations`, post({ eventId: step, label: "good" }))).status).toBe(
      201,
    );
    expect((await alice.fetch(`/api/conversations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    for (const [path, init] of [
      [`/api/share/${revoked}/annotations`, post({ eventId: step, label: "good" })],
      [`/api/share/${revoked}/verdicts`, post({ runId: events[0].data.runId, verdict: "up" })],
    ] as const)
      expect((await bob.fetch(path, init)).status, path).toBe(404);
    expect(
      (await alice.fetch(`/api/conversations/${id}/annotations`, post({ eventId: step, label: "good" }))).status,
    ).toBe(201);
  });
});

describe("verdicts", () => {
  it("stream, one per reviewer and run: a later one replaces theirs", async () => {
    const owners = await watchAfterRun(alice, `/api/conversations/${conversationId}`);
    const up = await bob.fetch(`/api/share/${token}/verdicts`, post({ runId, verdict: "up" }));
    expect(up.status).toBe(201);
    const down = await (
      await bob.fetch(`/api/share/${token}/verdicts`, post({ runId, verdict: "down", note: "Wrong units." }))
    ).json();
    expect(down).toMatchObject({ runId, verdict: "down", note: "Wrong units.", author: { name: "Reviewer 1" } });
    await expect.poll(() => ofType(owners.shown, "verdict_added").length).toBe(2);
    expect(lastOfType(owners.shown, "verdict_added")).toMatchObject({ verdict: down });
    const page = await (await alice.fetch(`/api/conversations/${conversationId}`)).json();
    expect(page.events.filter(({ type }: { type: string }) => type === "verdict_added")).toHaveLength(2);
    expect(
      (await bob.fetch(`/api/share/${token}/verdicts`, post({ runId: "another-run", verdict: "up" }))).status,
    ).toBe(404);
    expect((await bob.fetch(`/api/share/${token}/verdicts`, post({ runId, verdict: "sideways" }))).status).toBe(400);
  });
});

describe("reviews during a run", () => {
  it("go into the run's log through the run, in order with its events, and the run goes on", async () => {
    const id = (await alice.createConversation()).id;
    model.script("Count slowly.", [{ deltas: 200, numbered: true, delayMs: 5 }]);
    const first = await alice.run(id, "Count slowly.");
    const [card] = idsOf(first, "step_started");
    const { token: link } = await (await alice.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const running = watchSse(await alice.send(id, "Count slowly."));
    await expect.poll(() => ofType(running.shown, "text_delta").length).toBeGreaterThan(10);
    const response = await bob.fetch(`/api/share/${link}/annotations`, post({ eventId: card, label: "good" }));
    expect(response.status).toBe(201);
    const annotation = await response.json();
    await running.end;
    const second = running.shown;
    const added = second.find(({ data }) => data.type === "annotation_added")!;
    // Written by the running run (its runId), about the first run's step.
    expect(added.data).toMatchObject({
      runId: second[0].data.runId,
      annotation: { ...annotation, runId: first[0].data.runId },
    });
    expect(ofType(second, "text_delta")).toHaveLength(200);
    expect(second.at(-1)!.data.type).toBe("run_finished");
    const log = await readSse(await alice.events(id));
    expect(log.map(({ id: seq }) => seq)).toEqual(log.map((_, index) => index + 1));
  });
});

describe("reviews while runs start and end", () => {
  it("each get into the log once, and the log keeps its ids without a gap or a repeat", async () => {
    const id = (await alice.createConversation()).id;
    model.script("Answer in a few words.", [{ deltas: 20, numbered: true, delayMs: 2 }]);
    const first = await alice.run(id, "Answer in a few words.");
    const [card] = idsOf(first, "step_started");
    const { token: link } = await (await alice.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    // Runs one after the other, and reviews all along: some taken by a running run, some appended between runs,
    // some racing a run's claim.
    const runs = (async () => {
      for (let i = 0; i < 4; i++) await alice.run(id, "Answer in a few words.");
    })();
    const reviews = Array.from({ length: 24 }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, index * 15));
      const response = await bob.fetch(`/api/share/${link}/annotations`, post({ eventId: card, label: "good" }));
      expect(response.status).toBe(201);
      return (await response.json()).id as string;
    });
    const written = await Promise.all(reviews);
    await runs;
    const log = await readSse(await alice.events(id));
    expect(log.map(({ id: seq }) => seq)).toEqual(log.map((_, index) => index + 1));
    const added = log.filter(({ data }) => data.type === "annotation_added").map(({ data }) => data.annotation);
    expect((added as { id: string }[]).map(({ id: annotationId }) => annotationId).sort()).toEqual(written.sort());
    expect(log.filter(({ data }) => data.type === "run_finished")).toHaveLength(5);
  });
});

describe("keeping a call that went wrong as a failing example", () => {
  const halve = (code: string) => ({
    name: "halve",
    description: "Half of a number.",
    parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    code,
  });
  const BUGGY = "function run({ n }) { if (n < 0) throw new Error('negative'); return n / 2; }";

  it("is refused unless the tool fails it, and the tool's next version must pass it, which then keeps it", async () => {
    const id = (await alice.createConversation()).id;
    model.script("Halve minus four.", [
      { toolCalls: [{ name: "register_tool", args: halve(BUGGY) }] },
      { toolCalls: [{ name: "halve", args: { n: -4 } }] },
      { text: "It failed." },
    ]);
    const events = await alice.run(id, "Halve minus four.");
    const { id: toolId } = ofType(events, "tool_registered")[0].tool as { id: string };
    const [failedCall] = idsOf(events, "tool_call").slice(-1);
    expect(ofType(events, "tool_result").at(-1)).toMatchObject({ ok: false });
    await alice.fetch(`/api/conversations/${id}/annotations`, post({ eventId: failedCall, label: "bad input" }));

    const keep = (body: unknown) => alice.fetch(`/api/tools/${toolId}/examples`, post(body));
    const passing = await keep({ input: { n: 4 }, expected_output: 2, failing: true });
    expect(passing.status).toBe(422);
    expect((await passing.json()).error.message).toMatch(/already gives this output/);
    const kept = await keep({ input: { n: -4 }, expected_output: -2, failing: true });
    expect(kept.status).toBe(201);
    expect(await kept.json()).toMatchObject({
      failing_examples: [{ input: { n: -4 }, expected_output: -2 }],
      examples: [],
    });
    expect((await keep({ input: { n: -4 }, expected_output: -2, failing: true })).status).toBe(422);
    expect(
      (await bob.fetch(`/api/tools/${toolId}/examples`, post({ input: { n: -4 }, expected_output: -2, failing: true })))
        .status,
    ).toBe(404);

    model.script("Fix halve.", [
      { toolCalls: [{ name: "register_tool", args: halve(BUGGY.replace("n / 2", "n / 2 + 0")) }] },
      { toolCalls: [{ name: "register_tool", args: halve("function run({ n }) { return n / 2; }") }] },
      { text: "Fixed." },
    ]);
    const fixing = await alice.run(id, "Fix halve.");
    const [refused] = ofType(fixing, "tool_rejected");
    expect(refused.failures).toEqual([
      expect.objectContaining({ input: { n: -4 }, expected_output: -2, passed: false }),
    ]);
    expect(ofType(fixing, "tool_result")[0].error).toMatch(/kept by a person from calls of the previous version/);
    expect(ofType(fixing, "tool_registered")).toHaveLength(1);
    const tool = await (await alice.fetch(`/api/tools/${toolId}`)).json();
    expect(tool).toMatchObject({ version: 2, tested: true, failing_examples: [] });
    expect(tool.examples).toEqual([{ input: { n: -4 }, expected_output: -2 }]);
  });
});

describe("limits", () => {
  it("answers 429 past the reviews a person may write in a minute", async () => {
    const eve = new Api(app.url);
    const statuses: number[] = [];
    // The budget refills as the minute goes: a few more than the budget may pass while these are sent.
    while (statuses.length < 2 * REVIEWS_PER_MINUTE && statuses.at(-1) !== 429)
      statuses.push((await eve.fetch(`/api/share/${token}/verdicts`, post({ runId, verdict: "up" }))).status);
    expect(statuses.slice(0, REVIEWS_PER_MINUTE).every((status) => status === 201)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeLessThan(REVIEWS_PER_MINUTE * 1.25);
  });
});
