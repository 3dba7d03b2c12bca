// Who may reach what: every route and page that names an identity's things answers 404 to anyone else, with
// accounts off (anonymous identities) and on (accounts by session or token, beside anonymous identities); share links.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedSignedIn } from "../support/accounts";
import { Api, expectJson, ofType, sendJson, signedInApi } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, sqlClient } from "../support/database";
import { ModelServer } from "../support/model-server";
import { readSse, watchSse } from "../support/sse";
import { SoftAuthenticator } from "../support/webauthn";

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let alice: Api;
let bob: Api;
let conversationId: string;

const SHOUT = {
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.toUpperCase() + '!'; }",
};
const MAKE_AND_USE = "Make a shout tool and use it.";

/** Every row of every table a probe could touch, to prove that it changed nothing. */
async function snapshot(url = databaseUrl): Promise<string> {
  const database = await sqlClient(url);
  try {
    const queries = [
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
      "Account",
      "Passkey",
      "McpServer",
    ].map((table) => `SELECT * FROM "${table}" ORDER BY 1, 2`);
    // A token's and a session's last use move with every request that carries them: that is not a probe's doing.
    queries.push(`SELECT "id", "ownerId", "name" FROM "ApiToken" ORDER BY 1`);
    queries.push(`SELECT "id", "accountId", "method" FROM "Session" ORDER BY 1`);
    const rows = [];
    for (const query of queries) rows.push(await database.query(query));
    return JSON.stringify(rows);
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, {}, databaseUrl);
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
  model.script(MAKE_AND_USE, [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "shout", args: { text: "hi" } }] },
    { text: "HI!" },
  ]);
  model.script("hello", [{ text: "Hello." }]);
  conversationId = (await alice.createConversation()).id;
  await alice.run(conversationId, MAKE_AND_USE);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const json = (body: unknown, method = "POST") => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Who a route hears out: any identity (cookie, session or token), an account (its session or token), a session, a token. */
type Takes = "identity" | "account" | "session" | "token";
type Probe = [label: string, path: string, init?: RequestInit, takes?: Takes];

/** One of everything of an owner's that a route names. */
interface Things {
  conversationId: string;
  runId: string;
  /** A step's step_started event: the card an annotation names, the step a fork continues from. */
  stepEventId: number;
  annotationId: string;
  toolId: string;
  /** Another tool, for SEAT's routes (one of which deletes it). */
  seatToolId: string;
  tokenId: string;
  mcpServerId: string;
  /** An account's only: a passkey, and a session other than the one that asks. */
  passkeyId?: string;
  sessionId?: string;
}

/**
 * Every route and page that names something of an identity's, as [label, path, init, who it hears]: each is 404 for
 * anyone else it hears. A new one goes here, and is probed with accounts off and on. In an order its owner can walk
 * through (what deletes comes after what reads).
 */
const probes = (things: Things): Probe[] => {
  const conversation = `/api/conversations/${things.conversationId}`;
  const tool = `/api/tools/${things.toolId}`;
  const seatTool = `/seat/tools/${things.seatToolId}`;
  const list: Probe[] = [
    ["read", conversation],
    ["stream", `${conversation}/events`],
    ["export json", `${conversation}/export?format=json`],
    ["export md", `${conversation}/export?format=md`],
    ["run as OTLP", `${conversation}/runs/${things.runId}/otlp`],
    ["page", `/c/${things.conversationId}`],
    ["compare page", `/c/${things.conversationId}/compare`],
    ["rename", conversation, json({ title: "mine now" }, "PATCH")],
    ["annotate", `${conversation}/annotations`, json({ eventId: things.stepEventId, label: "good" })],
    ["delete annotation", `${conversation}/annotations/${things.annotationId}`, { method: "DELETE" }],
    ["verdict", `${conversation}/verdicts`, json({ runId: things.runId, verdict: "down" })],
    ["share", `${conversation}/share`, { method: "POST" }],
    ["read share", `${conversation}/share`],
    ["revoke share", `${conversation}/share`, { method: "DELETE" }],
    ["fork", `${conversation}/fork`, { method: "POST" }],
    ["continue from a step", `${conversation}/fork`, json({ eventId: things.stepEventId })],
    ["answer an approval", `${conversation}/approvals/an-approval`, json({ approved: true })],
    ["send", `${conversation}/messages`, json({ content: "hello" })],
    ["cancel", `${conversation}/cancel`, { method: "POST" }],
    ["delete", conversation, { method: "DELETE" }],
    ["read tool", tool],
    ["read a version", `${tool}?version=1`],
    ["versions", `${tool}/versions`],
    ["executions", `${tool}/executions`],
    ["tool page", `/tools/${things.toolId}`],
    ["execute", `${tool}/execute`, json({ input: { text: "hi" } })],
    ["keep an example", `${tool}/examples`, json({ input: { text: "a" }, expected_output: "A!" })],
    ["run the examples", `${tool}/test`, { method: "POST" }],
    ["deprecate", tool, json({ status: "deprecated" }, "PATCH")],
    ["delete tool", tool, { method: "DELETE" }],
    ["SEAT read", seatTool, undefined, "token"],
    ["SEAT execute", `${seatTool}/execute`, json({ input_data: { text: "hi" } }), "token"],
    ["SEAT delete", seatTool, { method: "DELETE" }, "token"],
    ["revoke token", `/api/tokens/${things.tokenId}`, { method: "DELETE" }],
    ["refresh MCP server", `/api/mcp-servers/${things.mcpServerId}/refresh`, { method: "POST" }],
    ["remove MCP server", `/api/mcp-servers/${things.mcpServerId}`, { method: "DELETE" }],
  ];
  if (things.passkeyId) {
    const passkey = `/api/account/passkeys/${things.passkeyId}`;
    list.push(["rename passkey", passkey, json({ name: "mine now" }, "PATCH"), "session"]);
    list.push(["remove passkey", passkey, { method: "DELETE" }, "session"]);
  }
  if (things.sessionId)
    list.push(["revoke session", `/api/account/sessions/${things.sessionId}`, { method: "DELETE" }, "account"]);
  return list;
};

/** The lists an identity has, with who they hear: another's things never show in them. */
type Listing = [path: string, takes?: Takes];
const LISTS: Listing[] = [
  ["/api/conversations"],
  ["/api/tools"],
  ["/api/tools/search?q=upper"],
  ["/api/tokens"],
  ["/api/shares"],
  ["/api/mcp-servers"],
  ["/seat/tools", "token"],
  ["/seat/tools/search?q=upper", "token"],
];
const ACCOUNT_LISTS: Listing[] = [
  ["/api/account/passkeys", "session"],
  ["/api/account/sessions", "account"],
];

/** Someone asking: what they bring decides which routes hear them. */
interface Caller {
  label: string;
  brings: "cookie" | "session" | "token" | "nothing";
  account: boolean;
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Whether a route that hears `takes` hears this caller (else it asks it to sign in or bring a token: 401). */
function hears(takes: Takes, caller: Caller): boolean {
  if (takes === "account") return caller.account;
  if (takes === "session") return caller.brings === "session";
  if (takes === "token") return caller.brings === "token";
  return true;
}

/** A probe's answer to anyone but the thing's owner. */
function refusal([, , init, takes = "identity"]: Probe, caller: Caller): number {
  // A stranger brings no credentials: a write is refused before it is looked at; a read gets it a fresh identity.
  const write = init?.method !== undefined && init.method !== "GET";
  if (caller.brings === "nothing" && write) return 401;
  return hears(takes, caller) ? 404 : 401;
}

interface Person {
  name: string;
  browser: Caller;
  token: Caller;
  things: Things;
}

/** Someone with one of everything a probe names: an account's when `email` is given, else an anonymous identity's. */
async function person(server: AppServer, database: string, name: string, email?: string): Promise<Person> {
  const api = email ? (await signedInApi(database, server.url, email)).browser : new Api(server.url);
  const post = async (path: string, body?: unknown) => expectJson(await sendJson(api, path, "POST", body), 201);
  const conversation = (await api.createConversation()).id;
  const run = await api.run(conversation, MAKE_AND_USE);
  const stepEventId = run.find((event) => event.data.type === "step_started")!.id;
  const things: Things = {
    conversationId: conversation,
    runId: run[0].data.runId,
    stepEventId,
    annotationId: (
      await post(`/api/conversations/${conversation}/annotations`, { eventId: stepEventId, label: "good" })
    ).id,
    toolId: (await post("/api/tools", { ...SHOUT, name: "yell" })).id,
    seatToolId: (await post("/api/tools", { ...SHOUT, name: "holler" })).id,
    tokenId: (await api.createToken("probed")).id,
    // Adding it connects to it, but a host under .internal is refused before any lookup: nothing dials it.
    mcpServerId: (await post("/api/mcp-servers", { name: "notes", url: "https://notes.example.internal/mcp" })).id,
  };
  // A standing link, so that reading another's would show its token.
  await post(`/api/conversations/${conversation}/share`);
  if (email) {
    const options = await expectJson(await sendJson(api, "/api/auth/passkey/register/options", "POST"), 200);
    const response = new SoftAuthenticator(server.url).create(options);
    things.passkeyId = (await post("/api/auth/passkey/register", { response, name: "Laptop" })).id;
    things.sessionId = (await seedSignedIn(database, email)).sessionId;
  }
  const { token } = await api.createToken("script");
  const account = email !== undefined;
  return {
    name,
    things,
    browser: {
      label: `${name}'s ${account ? "session" : "cookie"}`,
      brings: account ? "session" : "cookie",
      account,
      fetch: (path, init) => api.fetch(path, init),
    },
    token: {
      label: `${name}'s token`,
      brings: "token",
      account,
      fetch: (path, init = {}) =>
        fetch(`${server.url}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } }),
    },
  };
}

/** Who has things, by name and, for an account, its address: with accounts off, and on. */
const WORLDS: { who: string; env: Record<string, string>; people: [name: string, email?: string][] }[] = [
  { who: "anonymous identities", env: {}, people: [["Alice"], ["Bob"]] },
  {
    who: "accounts, and anonymous identities beside them",
    env: { TOOLSMITH_AUTH: "optional" },
    people: [["Ann", "ann@example.com"], ["Ben", "ben@example.com"], ["Cy"]],
  },
];

describe.each(WORLDS)("ownership among $who", ({ env, people: cast }) => {
  const database = freshDatabaseUrl();
  const accounts = "TOOLSMITH_AUTH" in env;
  let server: AppServer;
  let people: Person[];
  let stranger: Caller;

  beforeAll(async () => {
    server = scriptedApp(model.url, env, database);
    await server.start();
    people = [];
    for (const [name, email] of cast) people.push(await person(server, database, name, email));
    stranger = {
      label: "a stranger",
      brings: "nothing",
      account: false,
      fetch: (path, init) => fetch(`${server.url}${path}`, init),
    };
  });
  afterAll(() => server?.stop());

  /** Everyone but `owner`, by each thing they bring, and a stranger. */
  const othersOf = (owner: Person) => [
    ...people.filter((other) => other !== owner).flatMap((other) => [other.browser, other.token]),
    stranger,
  ];

  it("answers 404 to everyone else, by cookie, session or token, on every route and page that names one's things, and changes nothing", async () => {
    const before = await snapshot(database);
    for (const owner of people)
      for (const caller of othersOf(owner))
        for (const probe of probes(owner.things)) {
          const response = await caller.fetch(probe[1], probe[2]);
          expect(response.status, `${caller.label}: ${owner.name}'s ${probe[0]}, ${probe[1]}`).toBe(
            refusal(probe, caller),
          );
          await response.body?.cancel();
        }
    expect(await snapshot(database)).toBe(before);
  });

  it("shows nothing of one's things in anyone else's lists, and each in the owner's own", async () => {
    for (const owner of people) {
      const ids = Object.values(owner.things).filter((value) => typeof value === "string");
      for (const [path, takes = "identity"] of accounts ? [...LISTS, ...ACCOUNT_LISTS] : LISTS) {
        // The owner's own list shows its things (an anonymous identity has no account's lists).
        const ownCaller = takes === "token" ? owner.token : owner.browser;
        if (hears(takes, ownCaller)) {
          const listed = JSON.stringify(await expectJson(await ownCaller.fetch(path), 200));
          expect(
            ids.some((id) => listed.includes(id)),
            `${owner.name}'s own ${path}`,
          ).toBe(true);
        }
        for (const caller of othersOf(owner)) {
          const response = await caller.fetch(path);
          const seen = await expectJson(response, hears(takes, caller) ? 200 : 401);
          for (const id of ids) expect(JSON.stringify(seen), `${caller.label}: ${path}`).not.toContain(id);
        }
      }
    }
  });

  it("lets the owner through every probe: each 404 above is another's, not a thing missing", async () => {
    for (const owner of people)
      for (const [label, path, init, takes] of probes(owner.things)) {
        const response = await (takes === "token" ? owner.token : owner.browser).fetch(path, init);
        const body = await response.text();
        // A few answer 409 here (no approval waits, no run to stop): heard, and refused for a reason of its own.
        expect([200, 201, 202, 204, 409], `${owner.name}'s ${label}, ${path}: ${body}`).toContain(response.status);
      }
  });
});

describe("identity cookies", () => {
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
