import http from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

/*
 * /api/mcp with the SDK's own clients: the current one at revision 2026-07-28 and in the 2025-06-18 handshake, and
 * the 1.x SDK's (2025-11-25). Tools are made through the REST API with a token, as scripts make them.
 */

const model = new ModelServer();
let app: AppServer;
let alice: Api;
let bob: Api;
let aliceToken: string;
let bobToken: string;
const ids: Record<string, string> = {};

const SLUGIFY = {
  name: "slugify",
  description: "Turn a title into a URL slug.",
  parameters_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  code: "function run({ title }) { return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''); }",
};
const STATUS_OF = {
  name: "status_of",
  description: "The HTTP status a URL answers with.",
  parameters_schema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  // Mentions fetch in a comment too: the annotation comes from the call, not the text.
  code: "// fetch the page\nasync function run({ url }) { const response = await fetch(url); return response.status; }",
};
const WORD_STATS = {
  name: "word_stats",
  description: "Count the words and characters of a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return { words: text.split(/\\s+/).filter(Boolean).length, characters: text.length }; }",
};
const FAILING = {
  name: "always_fails",
  description: "Fails, to show how a failure looks.",
  parameters_schema: { type: "object", properties: {} },
  code: "function run() { throw new Error('the service is down'); }",
};
const RETIRED = { ...SLUGIFY, name: "retired_tool", description: "Deprecated: not offered." };
const OWN_TOOL = { ...SLUGIFY, name: "conversation_only", description: "Made in a conversation, not in the library." };

const send = async (token: string, path: string, method: string, body?: unknown) => {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
};

async function createTool(token: string, tool: object): Promise<string> {
  const created = await send(token, "/api/tools", "POST", tool);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/** The three kinds of client docs/mcp.md promises to serve. */
const REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18"] as const;
type Revision = (typeof REVISIONS)[number];

interface Connected {
  listTools: (cursor?: string) => Promise<{ tools: Array<Record<string, unknown>>; nextCursor?: string }>;
  callTool: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
  protocolVersion: string | undefined;
  close: () => Promise<void>;
}

/** A client of that revision connected with `token`: the current SDK's, or for 2025-11-25 the 1.x SDK's. */
async function connect(revision: Revision, token: string): Promise<Connected> {
  const url = new URL(`${app.url}/api/mcp`);
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  if (revision === "2025-11-25") {
    const client = new ClientV1({ name: "toolsmith-test-v1", version: "1.0.0" });
    const transport = new TransportV1(url, { requestInit });
    await client.connect(transport);
    return {
      listTools: (cursor) => client.listTools(cursor === undefined ? undefined : { cursor }),
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      protocolVersion: transport.protocolVersion,
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: "toolsmith-test", version: "1.0.0" },
    revision === "2026-07-28"
      ? { versionNegotiation: { mode: { pin: revision } } }
      : { supportedProtocolVersions: [revision] },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return {
    listTools: (cursor) => client.listTools(cursor === undefined ? undefined : { cursor }),
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    close: () => client.close(),
  };
}

/** A POST to /api/mcp with exactly these headers (fetch would not send a Host of our choosing). */
function rawPost(
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(app.url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname,
        port,
        path: "/api/mcp",
        method: "POST",
        headers: {
          host: `${hostname}:${port}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
  aliceToken = (await alice.createToken("mcp client")).token;
  bobToken = (await bob.createToken("mcp client")).token;
  for (const tool of [SLUGIFY, STATUS_OF, WORD_STATS, FAILING, RETIRED])
    ids[tool.name] = await createTool(aliceToken, tool);
  expect((await send(aliceToken, `/api/tools/${ids.retired_tool}`, "PATCH", { status: "deprecated" })).status).toBe(
    200,
  );
  ids.bob_tool = await createTool(bobToken, { ...SLUGIFY, name: "bob_tool" });
  // A tool of one of Alice's conversations: hers, but not in her library.
  const { id } = await alice.createConversation();
  model.script("Make a tool of your own.", [
    { toolCalls: [{ name: "register_tool", args: OWN_TOOL }] },
    { text: "Made." },
  ]);
  await alice.run(id, "Make a tool of your own.");
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe.each(REVISIONS)("an MCP client of revision %s", (revision) => {
  it("lists the owner's library tools with their schemas and annotations from the code", async () => {
    const client = await connect(revision, aliceToken);
    try {
      expect(client.protocolVersion).toBe(revision);
      const { tools, nextCursor } = await client.listTools();
      expect(nextCursor).toBeUndefined();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["always_fails", "slugify", "status_of", "word_stats"]);
      expect(tools.find((tool) => tool.name === "slugify")).toMatchObject({
        description: SLUGIFY.description,
        inputSchema: SLUGIFY.parameters_schema,
        annotations: { readOnlyHint: true, openWorldHint: false },
      });
      expect(tools.find((tool) => tool.name === "status_of")).toMatchObject({
        inputSchema: STATUS_OF.parameters_schema,
        annotations: { readOnlyHint: true, openWorldHint: true },
      });
    } finally {
      await client.close();
    }
  });

  it("calls a tool through the one call path: the statistics and the executions show it, from mcp", async () => {
    const before = (await send(aliceToken, `/api/tools/${ids.slugify}`, "GET")).body.stats.executions;
    const client = await connect(revision, aliceToken);
    try {
      const slug = await client.callTool("slugify", { title: `Hello MCP ${revision}` });
      expect(slug).toMatchObject({ content: [{ type: "text", text: `hello-mcp-${revision}` }] });
      expect(slug.isError).toBeFalsy();
      const stats = await client.callTool("word_stats", { text: "one two three" });
      expect(stats).toMatchObject({
        content: [{ type: "text", text: JSON.stringify({ words: 3, characters: 13 }) }],
        structuredContent: { words: 3, characters: 13 },
      });
      const failed = await client.callTool("always_fails", {});
      expect(failed).toMatchObject({ isError: true, content: [{ type: "text" }] });
      expect(JSON.stringify(failed.content)).toContain("the service is down");
    } finally {
      await client.close();
    }
    const tool = (await send(aliceToken, `/api/tools/${ids.slugify}`, "GET")).body;
    expect(tool.stats.executions).toBe(before + 1);
    const { executions } = (await send(aliceToken, `/api/tools/${ids.slugify}/executions`, "GET")).body;
    expect(executions[0]).toMatchObject({ source: "mcp", status: "succeeded", output: `hello-mcp-${revision}` });
    expect(executions[0].input).toEqual({ title: `Hello MCP ${revision}` });
  });

  it("refuses input that fails the tool's schema, as a result the model can read", async () => {
    const before = (await send(aliceToken, `/api/tools/${ids.slugify}`, "GET")).body.stats.executions;
    const client = await connect(revision, aliceToken);
    try {
      const refused = await client.callTool("slugify", { title: 42 });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/Invalid input for slugify: title: .*string/);
    } finally {
      await client.close();
    }
    expect((await send(aliceToken, `/api/tools/${ids.slugify}`, "GET")).body.stats.executions).toBe(before);
    const { entries } = (await send(aliceToken, "/api/audit?limit=5", "GET")).body;
    expect(entries.find((entry: { tool: string }) => entry.tool === "slugify")).toMatchObject({ decision: "refused" });
  });

  it("shows another identity only its own tools, and none of the first's can be called", async () => {
    const client = await connect(revision, bobToken);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["bob_tool"]);
      await expect(client.callTool("slugify", { title: "Not yours" })).rejects.toThrow(/Unknown tool: slugify/);
      await expect(client.callTool("conversation_only", { title: "x" })).rejects.toThrow(/Unknown tool/);
    } finally {
      await client.close();
    }
  });
});

describe("the MCP endpoint's access", () => {
  it("refuses a request without a token, with the browser's cookie alone, or with a revoked token: 401", async () => {
    const settings = /\/settings/;
    for (const headers of [{}, { cookie: alice.cookie! }, { authorization: "Bearer tsk_forged" }] as Record<
      string,
      string
    >[]) {
      const refused = await rawPost(headers);
      expect(refused.status).toBe(401);
      expect(refused.headers["www-authenticate"]).toMatch(/^Bearer /);
      expect(JSON.parse(refused.body).error.message).toMatch(settings);
    }
    const revoked = await alice.createToken("revoked soon");
    expect((await rawPost({ authorization: `Bearer ${revoked.token}` })).status).toBe(200);
    expect((await alice.fetch(`/api/tokens/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    const refused = await rawPost({ authorization: `Bearer ${revoked.token}` });
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toContain('error="invalid_token"');
    for (const revision of REVISIONS) await expect(connect(revision, revoked.token)).rejects.toThrow();
  });

  it("refuses a foreign Host or Origin (DNS rebinding) with 403, before looking at the token", async () => {
    const { port } = new URL(app.url);
    const bearer = { authorization: `Bearer ${aliceToken}` };
    for (const headers of [
      { ...bearer, host: `evil.example:${port}` },
      { ...bearer, origin: "http://evil.example" },
      { ...bearer, origin: "null" },
      { host: `evil.example:${port}` },
    ] as Record<string, string>[]) {
      const refused = await rawPost(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(refused.body).error.code).toMatch(/^forbidden_(host|origin)$/);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      expect((await rawPost({ ...bearer, host, origin: `http://${host}` })).status).toBe(200);
    }
  });

  it("answers a request it cannot take with a 4xx that says why, never a 5xx", async () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${app.url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${aliceToken}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body,
      });
    const call = (args: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slugify","arguments":${args}}}`;
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const cases: Array<[Response, number, RegExp]> = [
      [await post("{ not json"), 400, /must be JSON/],
      [await post(JSON.stringify({ hello: "world" })), 400, /not a valid JSON-RPC message/],
      // The API's rules for every body: what walks it (the audit's hash, the sandbox's input) must not overflow.
      [await post(call(`{"title":${"[".repeat(20_000)}${"]".repeat(20_000)}}`)), 400, /nested more than 64 levels/],
      [await post(call('{"title":"\\ud800"}')), 400, /unpaired UTF-16 surrogate/],
      [await post(ping, { "content-type": "text/plain" }), 415, /Content-Type: application\/json/],
      [await post(ping, { accept: "text/html" }), 406, /accept/i],
      [await post(JSON.stringify({ ...JSON.parse(ping), params: { pad: "x".repeat(300_000) } })), 413, /over/],
    ];
    for (const [response, status, message] of cases) {
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(body.error.message).toMatch(message);
    }
    const get = await fetch(`${app.url}/api/mcp`, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(get.status).toBe(405);
  });

  it("pages a large library with the SDK's cursor, and refuses a cursor it did not give", async () => {
    const carol = new Api(app.url);
    const { token } = await carol.createToken("big library");
    const names = Array.from({ length: 130 }, (_, index) => `tool_${String(index).padStart(3, "0")}`);
    for (let start = 0; start < names.length; start += 10) {
      await Promise.all(names.slice(start, start + 10).map((name) => createTool(token, { ...SLUGIFY, name })));
    }
    // The 1.x client reads a page at a time; the current one walks every page itself.
    const paged = await connect("2025-11-25", token);
    try {
      const first = await paged.listTools();
      expect(first.tools).toHaveLength(100);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await paged.listTools(first.nextCursor);
      expect(second.nextCursor).toBeUndefined();
      expect([...first.tools, ...second.tools].map((tool) => tool.name)).toEqual(names);
      await expect(paged.listTools("not-a-cursor")).rejects.toThrow(/cursor is not one this server gave out/);
    } finally {
      await paged.close();
    }
    const walking = await connect("2026-07-28", token);
    try {
      expect((await walking.listTools()).tools.map((tool) => tool.name)).toEqual(names);
    } finally {
      await walking.close();
    }
  });
});

describe("a library tool whose code calls another (tools.call), called by an MCP client", () => {
  it("serves the inner call on the owner's terms, through the one call path", async () => {
    await createTool(aliceToken, {
      name: "loud_slug",
      description: "A title as a slug, shouted.",
      parameters_schema: SLUGIFY.parameters_schema,
      code: "async function run({ title }) { return (await tools.call('slugify', { title })).toUpperCase(); }",
      uses: ["slugify"],
    });
    const client = await connect(REVISIONS[0], aliceToken);
    try {
      const loud = await client.callTool("loud_slug", { title: "Tools calling tools" });
      expect(loud).toMatchObject({ content: [{ type: "text", text: "TOOLS-CALLING-TOOLS" }] });
      expect(loud.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const { executions } = (await send(aliceToken, `/api/tools/${ids.slugify}/executions`, "GET")).body;
    expect(executions[0]).toMatchObject({ source: "mcp", status: "succeeded", output: "tools-calling-tools" });
  });
});
