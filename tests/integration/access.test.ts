import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, sqlClient } from "../support/database";
import { ModelServer } from "../support/model-server";
import { readSse, watchSse } from "../support/sse";

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let alice: Api;
let bob: Api;
let conversationId: string;
/** The run of Alice's conversation, for the routes that name one. */
let runId: string;
/** Alice's MCP server, for the route that removes one. */
let mcpServerId: string;

const SHOUT = {
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.toUpperCase() + '!'; }",
};

/** Every row of every table, to prove that a probe changed nothing. */
async function snapshot(): Promise<string> {
  const database = await sqlClient(databaseUrl);
  try {
    const tables = [
      "Conversation",
      "Message",
      "Run",
      "Event",
      "Tool",
      "ToolExecution",
      "ShareLink",
      "Annotation",
      "Verdict",
      "Reviewer",
      "McpServer",
    ];
    const rows = [];
    for (const table of tables) rows.push(await database.query(`SELECT * FROM "${table}" ORDER BY 1, 2`));
    return JSON.stringify(rows);
  } finally {
    await database.close();
  }
}

/** A client that never keeps a cookie: every request is a stranger. */
const anonymous = () => ({ fetch: (p: string, init?: RequestInit) => fetch(`${app.url}${p}`, init) });

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, {}, databaseUrl);
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
  model.script("Make a shout tool and use it.", [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "shout", args: { text: "hi" } }] },
    { text: "HI!" },
  ]);
  conversationId = (await alice.createConversation()).id;
  mcpServerId = (
    await (await alice.fetch("/api/mcp-servers", json({ name: "notes", url: "https://notes.example.com/mcp" }))).json()
  ).id;
  runId = (await alice.run(conversationId, "Make a shout tool and use it."))[0].data.runId;
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Every conversation route and page, and the route that removes an MCP server of hers, as [label, path, init]. */
const probes = (id: string): [string, string, RequestInit?][] => [
  ["read", `/api/conversations/${id}`],
  ["rename", `/api/conversations/${id}`, { ...json({ title: "mine now" }), method: "PATCH" }],
  ["delete", `/api/conversations/${id}`, { method: "DELETE" }],
  ["send", `/api/conversations/${id}/messages`, json({ content: "hello" })],
  ["stream", `/api/conversations/${id}/events`],
  ["cancel", `/api/conversations/${id}/cancel`, { method: "POST" }],
  ["share", `/api/conversations/${id}/share`, { method: "POST" }],
  ["read share", `/api/conversations/${id}/share`],
  ["revoke share", `/api/conversations/${id}/share`, { method: "DELETE" }],
  ["export json", `/api/conversations/${id}/export?format=json`],
  ["export md", `/api/conversations/${id}/export?format=md`],
  ["annotate", `/api/conversations/${id}/annotations`, json({ eventId: 2, label: "good" })],
  ["delete annotation", `/api/conversations/${id}/annotations/an-annotation`, { method: "DELETE" }],
  ["verdict", `/api/conversations/${id}/verdicts`, json({ runId: "a-run", verdict: "down" })],
  ["run as OTLP", `/api/conversations/${id}/runs/${runId}/otlp`],
  ["page", `/c/${id}`],
  ["fork", `/api/conversations/${id}/fork`, { method: "POST" }],
  ["continue from a step", `/api/conversations/${id}/fork`, json({ eventId: 2 })],
  ["compare page", `/c/${id}/compare`],
  ["remove MCP server", `/api/mcp-servers/${mcpServerId}`, { method: "DELETE" }],
];

describe("ownership", () => {
  it("answers 404 to another identity and to strangers on every conversation route and page (401 to a stranger's writes), and changes nothing", async () => {
    const before = await snapshot();
    for (const client of [bob, anonymous()]) {
      for (const [label, target, init] of probes(conversationId)) {
        const response = await client.fetch(target, init);
        // A stranger brings no credentials: a write under /api is refused before it is looked at.
        const write = init?.method !== undefined && init.method !== "GET";
        expect(response.status, `${label} ${target}`).toBe(client !== bob && write ? 401 : 404);
        await response.body?.cancel();
      }
    }
    expect(await snapshot()).toBe(before);
    // and nothing of it shows in their lists
    expect((await (await bob.fetch("/api/conversations")).json()).conversations).toEqual([]);
    expect(await (await bob.fetch("/api/mcp-servers")).json()).toEqual([]);
  });

  it("gives a tampered cookie a fresh identity, never access", async () => {
    const aliceId = (await alice.identity()).split(".")[0];
    const forged = `toolsmith_id=${aliceId}.${"A".repeat(43)}`;
    const response = await fetch(`${app.url}/api/conversations/${conversationId}`, { headers: { cookie: forged } });
    expect(response.status).toBe(404);
    const issued = response.headers.getSetCookie().find((cookie) => cookie.startsWith("toolsmith_id="))!;
    expect(issued).toMatch(/HttpOnly/i);
    expect(issued).toMatch(/SameSite=Lax/i);
    expect(issued).not.toContain(aliceId);
  });

  it("sets the identity cookie on the first request, page or API", async () => {
    for (const target of ["/", "/api/conversations"]) {
      const response = await fetch(`${app.url}${target}`);
      expect(response.headers.getSetCookie().some((cookie) => /^toolsmith_id=[\w-]+\.[\w-]+;/.test(cookie))).toBe(true);
    }
  });
});

describe("share links", () => {
  it("gives read access only, to the JSON, the events, the export and the page; viewing writes nothing", async () => {
    const created = await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" });
    expect(created.status).toBe(201);
    const { token, url } = await created.json();
    expect(token).toMatch(/^[\w-]{43}$/); // 256 bits
    expect(token).not.toContain(conversationId);
    expect(url).toBe(`${app.url}/s/${token}`);
    // one active link: sharing again gives the same one
    expect(
      await (await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })).json(),
    ).toMatchObject({ token });
    expect(await (await alice.fetch(`/api/conversations/${conversationId}/share`)).json()).toMatchObject({ token });

    const before = await snapshot();
    const shared = await (await bob.fetch(`/api/share/${token}`)).json();
    expect(shared.title).toBe("Make a shout tool and use it.");
    expect(shared.tools).toMatchObject([{ name: "shout", version: 1 }]);
    expect(shared).not.toHaveProperty("ownerId");
    const owners = await (await alice.fetch(`/api/conversations/${conversationId}`)).json();
    expect(shared.events).toEqual(owners.events);

    const replay = await readSse(await bob.fetch(`/api/share/${token}/events`));
    expect(replay.map((event) => event.id)).toEqual(owners.events.map((event: { id: number }) => event.id));
    const resumed = await readSse(await bob.fetch(`/api/share/${token}/events`, { headers: { "last-event-id": "3" } }));
    expect(resumed[0].id).toBe(4);

    const page = await bob.fetch(`/s/${token}`);
    expect(page.status).toBe(200);
    // the token is in the URL: it must not leak to other sites through the Referer header
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    const html = await page.text();
    expect(html).toContain('<meta property="og:title" content="Make a shout tool and use it. · Toolsmith"/>');
    expect(html).toContain('<meta name="description" content="Make a shout tool and use it."/>');
    expect(html).toContain('name="robots" content="noindex, nofollow"');

    const markdown = await (await bob.fetch(`/api/share/${token}/export?format=md`)).text();
    expect(markdown).toContain("# Make a shout tool and use it.");
    expect(markdown).toContain("**Tool call `shout`** — ok");
    expect(markdown).toContain("🛠 **Registered** `shout(text: string)` v1");
    expect(markdown).toContain("function run({ text })");
    const exported = await (await bob.fetch(`/api/share/${token}/export?format=json`)).json();
    expect(exported).toMatchObject({ format: "toolsmith.conversation.v1", tools: [{ name: "shout" }] });
    expect(exported.events).toHaveLength(owners.events.length);
    expect((await bob.fetch(`/api/share/${token}/export?format=pdf`)).status).toBe(400);

    // writes through the token are refused
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect((await bob.fetch(`/api/share/${token}`, { method })).status, method).toBe(405);
      expect((await bob.fetch(`/api/share/${token}/events`, { method })).status, `${method} events`).toBe(405);
    }
    expect(await snapshot()).toBe(before);
  });

  it("revokes: the token is then 404 everywhere, and sharing again makes a new token", async () => {
    const { token } = await (
      await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })
    ).json();
    expect((await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "DELETE" })).status).toBe(204);
    for (const target of [
      `/s/${token}`,
      `/api/share/${token}`,
      `/api/share/${token}/events`,
      `/api/share/${token}/export?format=md`,
      `/api/share/${token}/fork`,
      `/api/share/${token}/annotations`,
      `/api/share/${token}/annotations/an-annotation`,
      `/api/share/${token}/verdicts`,
      `/s/${token}/compare`,
    ]) {
      const write = /fork|annotations|verdicts/.test(target);
      const method = target.endsWith("an-annotation") ? "DELETE" : "POST";
      const response = await bob.fetch(target, write ? { ...json({}), method } : undefined);
      expect(response.status, target).toBe(404);
    }
    expect((await alice.fetch(`/api/conversations/${conversationId}/share`)).status).toBe(404);
    const again = await (await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })).json();
    expect(again.token).not.toBe(token);
    const list = await (await alice.fetch("/api/shares")).json();
    expect(list).toMatchObject([{ token: again.token, conversation: { id: conversationId } }]);
  });

  /** A run of Alice's streaming `deltas` deltas 10 ms apart, shared by link and watched by Bob, who was shown some. */
  async function sharedMidRun(prompt: string, deltas: number) {
    const id = (await alice.createConversation()).id;
    model.script(prompt, [{ deltas, numbered: true, delayMs: 10 }]);
    const { token } = await (await alice.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
    const own = readSse(await alice.send(id, prompt));
    const shared = watchSse(await bob.fetch(`/api/share/${token}/events`));
    await expect.poll(() => ofType(shared.shown, "text_delta").length, { timeout: 5_000 }).toBeGreaterThan(0);
    return { id, token, own, shared };
  }

  it("cuts a stream open on a link when the link is revoked, mid-run, and its reconnection is refused", async () => {
    const { id, token, own, shared } = await sharedMidRun("Talk slowly while I revoke.", 400);

    expect((await alice.fetch(`/api/conversations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    const revokedAt = performance.now();
    expect(await shared.end).toBe("cut off");
    expect(performance.now() - revokedAt).toBeLessThan(1_000);
    // What it was shown stops there: the run streams on to its owner alone.
    const seenByOwner = await own;
    expect(ofType(seenByOwner, "text_delta")).toHaveLength(400);
    expect(shared.shown.length).toBeLessThan(seenByOwner.length);
    expect(
      (await bob.fetch(`/api/share/${token}/events`, { headers: { "last-event-id": String(shared.shown.at(-1)!.id) } }))
        .status,
    ).toBe(404);
  });

  it("cuts a stream open on a link whose revocation it was never told of, when it checks the link again", async () => {
    const { id, own, shared } = await sharedMidRun("Talk slowly while the link goes quietly.", 800);

    // Gone from the database without a word to the instances, as when their listener was reconnecting.
    const database = await sqlClient(databaseUrl);
    await database.query('DELETE FROM "ShareLink" WHERE "conversationId" = ?', id);
    await database.close();
    expect(await shared.end).toBe("cut off");
    expect(ofType(shared.shown, "text_delta").length).toBeLessThan(800);
    expect(ofType(await own, "text_delta")).toHaveLength(800);
  });

  it("forks into the viewer's chats with its tools, which stay callable; the original is untouched", async () => {
    const { token } = await (
      await alice.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })
    ).json();
    const before = await (await alice.fetch(`/api/conversations/${conversationId}`)).json();
    const forked = await bob.fetch(`/api/share/${token}/fork`, { method: "POST" });
    expect(forked.status).toBe(201);
    const { id } = await forked.json();
    expect(id).not.toBe(conversationId);
    expect(
      (await (await bob.fetch("/api/conversations")).json()).conversations.map((c: { id: string }) => c.id),
    ).toContain(id);

    const fork = await (await bob.fetch(`/api/conversations/${id}`)).json();
    expect(fork.events.map((e: { type: string }) => e.type)).toEqual(
      before.events.map((e: { type: string }) => e.type),
    );
    expect(fork.tools).toMatchObject([{ name: "shout", version: 1, status: "active" }]);
    expect(fork.events.find((e: { type: string }) => e.type === "tool_registered").tool.id).toBe(fork.tools[0].id);

    model.script("Shout again in the fork.", [
      { toolCalls: [{ name: "shout", args: { text: "forked" } }] },
      { text: "FORKED!" },
    ]);
    const run = await bob.run(id, "Shout again in the fork.");
    expect(ofType(run, "tool_result")[0]).toMatchObject({ name: "shout", ok: true, output: "FORKED!" });
    expect(run[0].id).toBe(before.events.length + 1);

    const after = await (await alice.fetch(`/api/conversations/${conversationId}`)).json();
    expect(after.events).toEqual(before.events);
    expect(after.messages).toEqual(before.messages);
    // the fork is Bob's alone
    expect((await alice.fetch(`/api/conversations/${id}`)).status).toBe(404);
  });
});
