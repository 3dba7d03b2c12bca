import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
let app: AppServer;
let alice: Api;
let bob: Api;

const SLUGIFY = {
  name: "slugify",
  description: "Turn a title into a URL slug.",
  parameters_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  code: "function run({ title }) { return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''); }",
};

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("the tool library's REST API", () => {
  it("creates, lists, searches, executes, counts, versions, deprecates and deletes a tool", async () => {
    const created = await expectJson(await sendJson(alice, "/api/tools", "POST", SLUGIFY), 201);
    expect(created).toMatchObject({
      name: "slugify",
      version: 1,
      scope: "library",
      status: "active",
      parameters_schema: SLUGIFY.parameters_schema,
      code: SLUGIFY.code,
    });
    const id = created.id as string;

    expect(
      (await expectJson(await alice.fetch("/api/tools"), 200)).tools.map((tool: { id: string }) => tool.id),
    ).toContain(id);
    expect((await expectJson(await alice.fetch("/api/tools?q=URL%20SLUG"), 200)).tools).toHaveLength(1);
    expect((await expectJson(await alice.fetch("/api/tools/search?q=SLUG"), 200)).tools[0]).toMatchObject({
      id,
      stats: { executions: 0 },
    });
    expect((await expectJson(await alice.fetch("/api/tools/search?q=nothing-like-it"), 200)).tools).toEqual([]);

    const executed = await expectJson(
      await sendJson(alice, `/api/tools/${id}/execute`, "POST", { input: { title: "  Hello, World! " } }),
      200,
    );
    expect(executed).toMatchObject({ ok: true, output: "hello-world", error: null, success: true });
    // One duration, in Toolsmith's milliseconds and SEAT's seconds.
    expect(executed.execution_time).toBeGreaterThan(0);
    expect(Math.abs(executed.durationMs - executed.execution_time * 1000)).toBeLessThanOrEqual(1);
    const failed = await expectJson(
      await sendJson(alice, `/api/tools/${id}/execute`, "POST", { input: { title: 42 } }),
      400,
    );
    expect(failed.error.message).toMatch(/title/);

    const withStats = await expectJson(await alice.fetch(`/api/tools/${id}`), 200);
    expect(withStats.stats).toMatchObject({
      executions: 1,
      successes: 1,
      failures: 0,
      lastDurationMs: expect.any(Number),
      meanDurationMs: expect.any(Number),
    });
    expect(withStats.stats.lastUsedAt).not.toBeNull();

    const v2 = await expectJson(
      await sendJson(alice, "/api/tools", "POST", {
        ...SLUGIFY,
        code: "function run({ title }) { return title.toLowerCase().split(/\\W+/).filter(Boolean).join('_'); }",
      }),
      201,
    );
    expect(v2).toMatchObject({ id, version: 2 });
    const versions = await expectJson(await alice.fetch(`/api/tools/${id}/versions`), 200);
    expect(versions.versions.map((version: { version: number }) => version.version)).toEqual([1, 2]);
    expect(
      (
        await expectJson(
          await sendJson(alice, `/api/tools/${id}/execute?version=1`, "POST", { input: { title: "A B" } }),
          200,
        )
      ).output,
    ).toBe("a-b");
    expect(
      (await expectJson(await sendJson(alice, `/api/tools/${id}/execute`, "POST", { input: { title: "A B" } }), 200))
        .output,
    ).toBe("a_b");
    expect((await expectJson(await alice.fetch(`/api/tools/${id}?version=1`), 200)).code).toBe(SLUGIFY.code);
    await expectJson(await alice.fetch(`/api/tools/${id}?version=9`), 404);

    const executions = await expectJson(await alice.fetch(`/api/tools/${id}/executions`), 200);
    expect(
      executions.executions.map((execution: { version: number; source: string }) => [
        execution.version,
        execution.source,
      ]),
    ).toEqual([
      [2, "api"],
      [1, "api"],
      [1, "api"],
    ]);
    expect(executions.executions[0]).toMatchObject({
      status: "succeeded",
      input: { title: "A B" },
      output: "a_b",
      conversationId: null,
    });

    const deprecated = await expectJson(
      await sendJson(alice, `/api/tools/${id}`, "PATCH", { status: "deprecated", description: "Old slugs." }),
      200,
    );
    expect(deprecated).toMatchObject({ status: "deprecated", description: "Old slugs.", version: 2 });
    expect(
      (await expectJson(await alice.fetch("/api/tools?status=deprecated"), 200)).tools.map(
        (tool: { id: string }) => tool.id,
      ),
    ).toEqual([id]);
    expect(
      (await expectJson(await alice.fetch("/api/tools?status=active"), 200)).tools.map(
        (tool: { id: string }) => tool.id,
      ),
    ).not.toContain(id);

    const totals = await expectJson(await alice.fetch("/api/tools/stats"), 200);
    expect(totals).toMatchObject({ tools: 1, deprecated: 1, executions: 3, successes: 3, failures: 0, successRate: 1 });

    // a new version brings a deprecated tool back into use
    expect(await expectJson(await sendJson(alice, "/api/tools", "POST", SLUGIFY), 201)).toMatchObject({
      id,
      version: 3,
      status: "active",
    });

    expect((await sendJson(alice, `/api/tools/${id}`, "DELETE")).status).toBe(204);
    await expectJson(await alice.fetch(`/api/tools/${id}`), 404);
  });

  it("answers a tool call itself, without Next's router, and stops the call when its client leaves", async () => {
    const caller = new Api(app.url);
    const { id: quick } = await expectJson(await sendJson(caller, "/api/tools", "POST", SLUGIFY), 201);
    const answered = await sendJson(caller, `/api/tools/${quick}/execute`, "POST", { input: { title: "Hi there" } });
    expect(await expectJson(answered, 200)).toMatchObject({ ok: true, output: "hi-there" });
    // server.mjs's direct route (instrumentation-node.ts) answers whole, with its length; Next's router streams its
    // answers and says they vary with its own headers.
    expect(answered.headers.get("content-length")).not.toBeNull();
    expect(answered.headers.get("vary")).toBeNull();
    expect(answered.headers.get("x-content-type-options")).toBe("nosniff");

    const spinning = { ...SLUGIFY, name: "spin", code: "function run() { for (;;) {} }" };
    const { id: endless } = await expectJson(await sendJson(caller, "/api/tools", "POST", spinning), 201);
    const leaving = new AbortController();
    setTimeout(() => leaving.abort(), 300);
    const call = caller.fetch(`/api/tools/${endless}/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: { title: "x" } }),
      signal: leaving.signal,
    });
    await expect(call).rejects.toThrow(/abort/i);
    const executions = async () =>
      (await expectJson(await caller.fetch(`/api/tools/${endless}/executions`), 200)).executions;
    await expect.poll(executions).toHaveLength(1);
    const [execution] = await executions();
    // Stopped when the client left, not at the sandbox's time limit.
    expect(execution).toMatchObject({ status: "cancelled" });
    expect(execution.durationMs).toBeLessThan(3_000);
  });

  it("answers 422 with the violations, 400 for bad bodies and queries, and pages through a long list", async () => {
    const refused = await expectJson(
      await sendJson(alice, "/api/tools", "POST", {
        ...SLUGIFY,
        name: "env",
        code: "function run() {\n  return process.env;\n}",
      }),
      422,
    );
    expect(refused.violations).toContainEqual({ message: expect.stringContaining("process"), line: 2, column: 10 });
    expect(
      (await expectJson(await sendJson(alice, "/api/tools", "POST", { ...SLUGIFY, name: "calculate" }), 422)).error
        .message,
    ).toMatch(/built-in/);
    expect(
      (
        await expectJson(
          await sendJson(alice, "/api/tools", "POST", { ...SLUGIFY, parameters_schema: { type: "string" } }),
          422,
        )
      ).error.message,
    ).toMatch(/object schema/);
    expect((await expectJson(await sendJson(alice, "/api/tools", "POST", { name: "x" }), 400)).error.message).toMatch(
      /description/,
    );
    expect((await expectJson(await alice.fetch("/api/tools?status=gone"), 400)).error.message).toMatch(/status/);
    expect((await expectJson(await alice.fetch("/api/tools/search"), 400)).error.message).toMatch(/q is required/);
    expect((await expectJson(await alice.fetch("/api/tools?cursor=nonsense"), 400)).error.message).toMatch(/cursor/);

    const pager = new Api(app.url);
    for (let i = 0; i < 5; i++)
      await expectJson(await sendJson(pager, "/api/tools", "POST", { ...SLUGIFY, name: `tool_${i}` }), 201);
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { tools: { name: string }[]; nextCursor: string | null } = await expectJson(
        await pager.fetch(`/api/tools?limit=2${cursor ? `&cursor=${cursor}` : ""}`),
        200,
      );
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toEqual(["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
  });

  it("hides another identity's tools behind 404 on every route, and refuses cross-site cookie writes", async () => {
    const { id } = await expectJson(
      await sendJson(alice, "/api/tools", "POST", { ...SLUGIFY, name: "private_tool" }),
      201,
    );
    for (const [path, method, body] of [
      [`/api/tools/${id}`, "GET"],
      [`/api/tools/${id}?version=1`, "GET"],
      [`/api/tools/${id}`, "PATCH", { status: "deprecated" }],
      [`/api/tools/${id}`, "DELETE"],
      [`/api/tools/${id}/versions`, "GET"],
      [`/api/tools/${id}/executions`, "GET"],
      [`/api/tools/${id}/execute`, "POST", { input: { title: "x" } }],
      ["/api/tools/no-such-tool", "GET"],
    ] as const) {
      expect((await sendJson(bob, path, method, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await expectJson(await bob.fetch("/api/tools/search?q=private"), 200)).tools).toEqual([]);
    expect((await expectJson(await bob.fetch("/api/tools/stats"), 200)).tools).toBe(0);
    expect((await expectJson(await alice.fetch(`/api/tools/${id}`), 200)).status).toBe("active");

    const crossSite = await alice.fetch("/api/tools", {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "cross-site", origin: "http://evil.test" },
      body: JSON.stringify(SLUGIFY),
    });
    expect(crossSite.status).toBe(403);
  });
});

describe("API tokens", () => {
  it("act as their owner with Bearer, are listed without the secret, and stop working when revoked", async () => {
    const owner = new Api(app.url);
    const { id: toolId } = await expectJson(
      await sendJson(owner, "/api/tools", "POST", { ...SLUGIFY, name: "token_tool" }),
      201,
    );
    const created = await expectJson(await sendJson(owner, "/api/tokens", "POST", { name: "ci script" }), 201);
    expect(created).toMatchObject({ name: "ci script", token: expect.stringMatching(/^tsk_/) });
    const listed = await expectJson(await owner.fetch("/api/tokens"), 200);
    expect(listed).toEqual([expect.objectContaining({ id: created.id, name: "ci script" })]);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const script = (path: string, init: RequestInit = {}) =>
      fetch(`${app.url}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${created.token}` } });
    const viaToken = await expectJson(await script(`/api/tools/${toolId}`), 200);
    expect(viaToken.name).toBe("token_tool");
    // bearer requests are not cookie-bound: a cross-origin script with the token may write
    const ran = await script(`/api/tools/${toolId}/execute`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://elsewhere.test" },
      body: JSON.stringify({ input: { title: "By Token" } }),
    });
    expect((await expectJson(ran, 200)).output).toBe("by-token");
    expect((await expectJson(await owner.fetch("/api/tokens"), 200))[0].lastUsedAt).not.toBeNull();

    // another identity cannot revoke it
    await expectJson(await sendJson(bob, `/api/tokens/${created.id}`, "DELETE"), 404);
    expect((await sendJson(owner, `/api/tokens/${created.id}`, "DELETE")).status).toBe(204);
    for (const token of [created.token, "tsk_forged", "not-a-token"]) {
      const refused = await fetch(`${app.url}/api/tools`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.message).toMatch(/not valid or was revoked/);
    }
  });
});

describe("the library in chat", () => {
  it("offers a tool added to the library in conversation A to the model in conversation B; its statistics count both", async () => {
    const owner = new Api(app.url);
    const make = "Make a slugify tool.";
    model.script(make, [
      { toolCalls: [{ name: "register_tool", args: SLUGIFY }] },
      { toolCalls: [{ name: "slugify", args: { title: "In A" } }] },
      { text: "Made." },
    ]);
    const a = await owner.createConversation();
    const events = await owner.run(a.id, make);
    const [registered] = ofType(events, "tool_registered") as unknown as { tool: { id: string } }[];
    const toolId = registered.tool.id;
    expect((await expectJson(await owner.fetch(`/api/tools/${toolId}`), 200)).scope).toBe("conversation");

    const use = "Slugify 'In B'.";
    model.script(use, [{ toolCalls: [{ name: "slugify", args: { title: "In B" } }] }, { text: "in-b" }]);
    const before = await owner.createConversation();
    await owner.run(before.id, use);
    expect(model.requestsFor(use)[0].tools!.map((tool) => tool.function.name)).not.toContain("slugify");

    expect(
      (await expectJson(await sendJson(owner, `/api/tools/${toolId}`, "PATCH", { scope: "library" }), 200)).scope,
    ).toBe("library");
    const b = await owner.createConversation();
    const inB = await owner.run(b.id, use);
    expect(
      model
        .requestsFor(use)
        .at(-2)!
        .tools!.map((tool) => tool.function.name),
    ).toContain("slugify");
    expect(ofType(inB, "tool_result")[0]).toMatchObject({ name: "slugify", ok: true, output: "in-b" });

    await expectJson(
      await sendJson(owner, `/api/tools/${toolId}/execute`, "POST", { input: { title: "By API" } }),
      200,
    );
    const { stats } = await expectJson(await owner.fetch(`/api/tools/${toolId}`), 200);
    expect(stats).toMatchObject({ executions: 3, successes: 3 });
    const sources = (await expectJson(await owner.fetch(`/api/tools/${toolId}/executions`), 200)).executions.map(
      (execution: { source: string; conversationId: string | null }) => [execution.source, execution.conversationId],
    );
    expect(sources).toEqual([
      ["api", null],
      ["chat", b.id],
      ["chat", a.id],
    ]);

    // deprecated tools are no longer offered
    await expectJson(await sendJson(owner, `/api/tools/${toolId}`, "PATCH", { status: "deprecated" }), 200);
    const c = await owner.createConversation();
    model.script("Anything new?", [{ text: "No." }]);
    await owner.run(c.id, "Anything new?");
    expect(
      model
        .requestsFor("Anything new?")
        .at(-1)!
        .tools!.map((tool) => tool.function.name),
    ).not.toContain("slugify");
  });
});
