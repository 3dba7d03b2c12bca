import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as mcp from "@/lib/mcp-client";
import type { McpServerSpec } from "@/lib/mcp-client";
import { mcpClientLimits } from "@/lib/settings/config";
import { Api } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { everythingStdio, fixtureStdio, startEverythingHttp } from "../support/mcp-servers";

/*
 * lib/mcp-client against real servers: server-everything (the reference third-party server) over stdio and over
 * Streamable HTTP, the fixture server (tests/support/mcp-fixture-server.mjs) for paging, list_changed and a server
 * that misbehaves, a raw HTTP server that breaks the protocol, and Toolsmith's own /api/mcp.
 */

// What a stdio server must never see.
process.env.TOOLSMITH_SECRET = "fake-toolsmith-secret";
process.env.OPENAI_API_KEY = "sk-fake-model-key";
process.env.DATABASE_URL = "postgresql://fake:fake@127.0.0.1:1/fake";

const opened: mcp.McpClientPool[] = [];

/** A pool of its own, with some limits changed. */
function poolWith(
  limits: Partial<ReturnType<typeof mcpClientLimits>> = {},
  resolve?: (host: string) => Promise<string[]>,
) {
  const made = new mcp.McpClientPool({ limits: { ...mcpClientLimits(), ...limits }, resolve });
  opened.push(made);
  return made;
}

/** TOOLSMITH_MCP_PRIVATE_HOSTS=127.0.0.1: a person's server may be on loopback (tests only). */
const pool = poolWith({ privateHosts: ["127.0.0.1"] });

const call = (spec: McpServerSpec, tool: string, args: object = {}, timeoutMs = 5000) =>
  pool.call(spec, tool, args, { timeoutMs });

afterAll(async () => {
  await Promise.all(opened.map((each) => each.closeAll()));
});

describe("server-everything over stdio", () => {
  const spec = everythingStdio({ GREETING: "hello" });

  it("lists its tools, qualified by the server's name, with schemas and annotations", async () => {
    const tools = await pool.tools(spec);
    const names = tools.map((tool) => tool.qualifiedName);
    expect(names).toEqual(expect.arrayContaining(["everything__echo", "everything__get-sum", "everything__get-env"]));
    expect(tools.find((tool) => tool.name === "get-sum")).toMatchObject({
      server: "everything",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    });
    expect(tools.find((tool) => tool.name === "get-env")?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(pool.status(spec)).toMatchObject({ state: "ready", toolCount: tools.length });
  });

  it("gives the process exactly its entry's environment and PATH, none of the app's", async () => {
    const result = await call(spec, "get-env");
    expect(result.ok).toBe(true);
    const text = result.ok && result.content[0].type === "text" ? result.content[0].text : "";
    expect(JSON.parse(text)).toEqual({ GREETING: "hello", PATH: process.env.PATH });
    expect(text).not.toContain("fake-toolsmith-secret");
    expect(text).not.toContain("sk-fake-model-key");
  });

  it("passes text, images, embedded resources, resource links and structured content through as such", async () => {
    expect(await call(spec, "get-sum", { a: 2, b: 3 })).toMatchObject({
      ok: true,
      isError: false,
      content: [{ type: "text", text: expect.stringContaining("5") }],
    });
    const image = await call(spec, "get-tiny-image");
    expect(image).toMatchObject({
      ok: true,
      content: expect.arrayContaining([
        { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
      ]),
    });
    expect(mcp.resultForModel(image).text).toMatch(/\[image image\/png, 3\.\d KB\]/);
    expect(mcp.resultForModel(image).media[0]).toMatchObject({ type: "image", mimeType: "image/png" });

    const links = await call(spec, "get-resource-links", { count: 2 });
    expect(links).toMatchObject({
      ok: true,
      content: [
        { type: "text" },
        { type: "resource_link", uri: "demo://resource/dynamic/blob/1", name: "Blob Resource 1" },
        { type: "resource_link", uri: "demo://resource/dynamic/text/2", name: "Text Resource 2" },
      ],
    });
    const embedded = await call(spec, "get-resource-reference", { resourceType: "Text", resourceId: 2 });
    expect(embedded).toMatchObject({
      ok: true,
      content: expect.arrayContaining([
        { type: "resource", uri: "demo://resource/dynamic/text/2", mimeType: "text/plain", text: expect.any(String) },
      ]),
    });
    const blob = await call(spec, "get-resource-reference", { resourceType: "Blob", resourceId: 1 });
    expect(blob).toMatchObject({
      ok: true,
      content: expect.arrayContaining([
        {
          type: "resource",
          uri: "demo://resource/dynamic/blob/1",
          mimeType: "text/plain",
          blobBytes: expect.any(Number),
        },
      ]),
    });

    const weather = await call(spec, "get-structured-content", { location: "Chicago" });
    expect(weather).toMatchObject({ ok: true, structuredContent: { temperature: 36, humidity: 82 } });
  });

  it("answers a tool's own failure and an unknown tool as results, not exceptions", async () => {
    const invalid = await call(spec, "get-sum", { a: "two" });
    expect(invalid.ok ? invalid.isError : false).toBe(true);
    // server-everything answers an unknown name as the tool's failure; other servers as a JSON-RPC error (below).
    const unknown = await call(spec, "no-such-tool");
    expect(unknown.ok && unknown.isError).toBe(true);
    expect(mcp.resultForModel(unknown)).toMatchObject({ isError: true, text: expect.stringContaining("no-such-tool") });
  });

  it("stops a call at its timeout, and at its signal, and the connection goes on", async () => {
    const started = Date.now();
    expect(await call(spec, "trigger-long-running-operation", { duration: 5, steps: 5 }, 300)).toEqual({
      ok: false,
      error: 'MCP server "everything" did not answer the call within 300 ms.',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(
      await pool.call(
        spec,
        "trigger-long-running-operation",
        { duration: 5, steps: 5 },
        { timeoutMs: 5000, signal: controller.signal },
      ),
    ).toEqual({ ok: false, error: 'The call to MCP server "everything" was cancelled.' });
    expect(await call(spec, "echo", { message: "still here" })).toMatchObject({
      ok: true,
      content: [{ type: "text", text: "Echo: still here" }],
    });
  });

  it("refuses a command from a person: no process is started", async () => {
    const untrusted = { ...spec, trusted: false };
    await expect(pool.tools(untrusted)).rejects.toThrow(mcp.McpClientError);
    await expect(pool.tools(untrusted)).rejects.toThrow(/only the operator's profiles file/);
    expect(await call(untrusted, "echo")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^MCP server "everything" is a command/),
    });
    expect(pool.status(untrusted).state).toBe("failed");
  });
});

describe("server-everything over Streamable HTTP", () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp();
  });
  afterAll(() => server?.stop());

  it("lists and calls a person's server on a host TOOLSMITH_MCP_PRIVATE_HOSTS allows", async () => {
    const spec: McpServerSpec = { name: "remote", trusted: false, url: server.url };
    const tools = await pool.tools(spec);
    expect(tools.map((tool) => tool.qualifiedName)).toContain("remote__get-tiny-image");
    expect(await pool.call(spec, "echo", { message: "over HTTP" }, { timeoutMs: 5000 })).toMatchObject({
      ok: true,
      content: [{ type: "text", text: "Echo: over HTTP" }],
    });
    const image = await pool.call(spec, "get-tiny-image", {}, { timeoutMs: 5000 });
    expect(mcp.resultForModel(image).media).toHaveLength(1);
    const weather = await pool.call(spec, "get-structured-content", { location: "New York" }, { timeoutMs: 5000 });
    expect(weather).toMatchObject({ ok: true, structuredContent: { temperature: 33 } });
  });

  it("refuses a person's server on loopback when no private host is allowed, before connecting", async () => {
    const strict = poolWith({ privateHosts: [] });
    const spec: McpServerSpec = { name: "remote", trusted: false, url: server.url };
    await expect(strict.tools(spec)).rejects.toThrow(
      /^MCP server "remote" may not be reached: 127\.0\.0\.1 is not a public address\. .*TOOLSMITH_MCP_PRIVATE_HOSTS/,
    );
    // The operator's entry for the same URL may be anywhere.
    expect((await strict.tools({ ...spec, trusted: true })).length).toBeGreaterThan(5);
  });

  it("says which server is gone when it stops, and connects again when it is back", async () => {
    let own = await startEverythingHttp();
    const spec: McpServerSpec = { name: "flaky", trusted: true, url: own.url };
    const port = Number(new URL(own.url).port);
    expect((await pool.call(spec, "echo", { message: "1" }, { timeoutMs: 5000 })).ok).toBe(true);
    await own.stop();
    const gone = await pool.call(spec, "echo", { message: "2" }, { timeoutMs: 5000 });
    // Which of the two depends on whether the kept-alive socket heard the server go before the call was sent.
    const said =
      /^MCP server "flaky" (refused the connection \(nothing listens there\)|dropped the connection) \((.+)\)\.$/;
    expect(gone).toEqual({ ok: false, error: expect.stringMatching(said) });
    expect(said.exec(gone.ok ? "" : gone.error)?.[2]).toBe(own.url);
    expect(pool.status(spec)).toMatchObject({ state: "failed", error: gone.ok ? "" : gone.error });
    own = await startEverythingHttp(port);
    try {
      expect(await pool.call(spec, "echo", { message: "3" }, { timeoutMs: 5000 })).toMatchObject({ ok: true });
      // Restarted between two calls, the server has forgotten the session: the call is made again on a new one.
      await own.stop();
      own = await startEverythingHttp(port);
      expect(await pool.call(spec, "echo", { message: "4" }, { timeoutMs: 5000 })).toMatchObject({
        ok: true,
        content: [{ type: "text", text: "Echo: 4" }],
      });
      expect(pool.status(spec).state).toBe("ready");
      // So is a listing: this session has not listed yet.
      await own.stop();
      own = await startEverythingHttp(port);
      expect((await pool.tools(spec)).map((tool) => tool.name)).toContain("echo");
    } finally {
      await own.stop();
    }
  });
});

describe("the fixture server over stdio", () => {
  it("pages through nextCursor, two tools a page, and keeps the list until the server says it changed", async () => {
    const spec = fixtureStdio("paged", { FIXTURE_TOOLS: "7" });
    const tools = await pool.tools(spec);
    expect(tools.map((tool) => tool.name)).toEqual([
      ...["echo", "sleep", "add_tool", "huge", "malformed", "die", "shout", "meta", "list_count", "pid", "noise"],
      ...Array.from({ length: 7 }, (_, index) => `tool_00${index}`),
    ]);
    const pages = Math.ceil(tools.length / 2);
    await pool.tools(spec);
    expect(await call(spec, "list_count")).toMatchObject({ content: [{ text: String(pages) }] });

    expect(await call(spec, "add_tool")).toMatchObject({ ok: true, content: [{ text: "added_18" }] });
    // The notification comes before the call's answer, on the same pipe.
    const after = await pool.tools(spec);
    expect(after.at(-1)).toMatchObject({ name: "added_18", qualifiedName: "paged__added_18" });
    expect(await call(spec, "list_count")).toMatchObject({
      content: [{ text: String(pages + Math.ceil(after.length / 2)) }],
    });
  });

  it("keeps at most the tools limit, and says which were left out", async () => {
    const small = poolWith({ maxTools: 10 });
    const spec = fixtureStdio("many", { FIXTURE_TOOLS: "40", FIXTURE_PAGE: "7" });
    expect(await small.tools(spec)).toHaveLength(10);
    const { skipped } = small.status(spec);
    expect(skipped?.length).toBeGreaterThan(0);
    expect(skipped?.[0]).toEqual({ name: "noise", reason: "over the 10 tools kept of one server" });
    // Pages stop being read once the limit is passed: 10 tools of 49 are 2 pages of 7.
    expect(await small.call(spec, "list_count", {}, { timeoutMs: 5000 })).toMatchObject({ content: [{ text: "2" }] });
  });

  it("passes the caller's _meta (a traceparent) with the call", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const result = await pool.call(fixtureStdio(), "meta", {}, { timeoutMs: 5000, meta: { traceparent } });
    expect(result.ok && result.content[0].type === "text" && JSON.parse(result.content[0].text)).toEqual({
      traceparent,
    });
  });

  it("fails a huge result at the limit, reading no more of it, and starts the server again at the next call", async () => {
    const spec = fixtureStdio("huge");
    const result = await call(spec, "huge", { bytes: 20 * 1024 * 1024 }, 20_000);
    expect(result).toEqual({
      ok: false,
      error: 'MCP server "huge" sent a message over the 4 MB limit. The call did not finish.',
    });
    expect(await call(spec, "echo", { text: "again" })).toMatchObject({
      ok: true,
      structuredContent: { text: "again" },
    });
  });

  it("says a malformed result is malformed, and the connection goes on", async () => {
    const spec = fixtureStdio();
    expect(await call(spec, "malformed")).toEqual({
      ok: false,
      error: 'MCP server "fixture" sent a malformed answer: content: Invalid input: expected array, received string',
    });
    expect(await call(spec, "noise", {}, 300)).toEqual({
      ok: false,
      error:
        'MCP server "fixture" did not answer the call within 300 ms. It sent a message that is not JSON-RPC, which may have been its answer.',
    });
    expect(await call(spec, "no_such_tool")).toEqual({
      ok: false,
      error: 'MCP server "fixture" answered with an error: Unknown tool: no_such_tool',
    });
    expect((await call(spec, "echo", {})).ok).toBe(true);
  });

  it("fails a call whose server dies mid-call with a clear error, then starts it again", async () => {
    const spec = fixtureStdio("mortal");
    await pool.tools(spec);
    expect(await call(spec, "die")).toEqual({
      ok: false,
      error: `MCP server "mortal"'s process exited. The call did not finish.`,
    });
    expect(pool.status(spec)).toEqual({ state: "failed", error: `MCP server "mortal"'s process exited.` });
    expect(await call(spec, "echo", { text: "reborn" })).toMatchObject({ ok: true });
    expect(pool.status(spec).state).toBe("ready");
  });

  /** The process id of the fixture server that answers `spec`'s calls. */
  const pidOf = async (spec: McpServerSpec) => {
    const result = await call(spec, "pid");
    return Number(result.ok && result.content[0].type === "text" ? result.content[0].text : NaN);
  };
  const alive = (id: number) => {
    try {
      process.kill(id, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("ends a server's process on close, and starts another at the next use", async () => {
    const spec = fixtureStdio("closable");
    const first = await pidOf(spec);
    expect(alive(first)).toBe(true);
    await pool.close(spec);
    expect(pool.status(spec)).toEqual({ state: "idle" });
    await vi.waitFor(() => expect(alive(first)).toBe(false));
    const second = await pidOf(spec);
    expect(second).not.toBe(first);
    expect(pool.status(spec)).toMatchObject({ state: "ready" });
  });

  it("refreshes a connection: a new one, listed, while a call in flight finishes on the old one, which then ends", async () => {
    const spec = fixtureStdio("refreshed", { FIXTURE_TOOLS: "1" });
    const first = await pidOf(spec);
    const sleeping = call(spec, "sleep", { ms: 500 });
    expect(await pool.refresh(spec)).toMatchObject({ state: "ready", toolCount: 12 });
    expect(pool.listed(spec)?.map((tool) => tool.name)).toContain("tool_000");
    expect(await sleeping).toMatchObject({ ok: true, content: [{ text: "slept" }] });
    const second = await pidOf(spec);
    expect(second).not.toBe(first);
    await vi.waitFor(() => expect(alive(first)).toBe(false));
    expect(alive(second)).toBe(true);
  });

  it("refreshes a server that cannot start into its failure, and a refused spec into its problem", async () => {
    const missing: McpServerSpec = { name: "missing", trusted: true, command: "/nonexistent/mcp-server" };
    expect(await pool.refresh(missing)).toEqual({
      state: "failed",
      error: 'MCP server "missing" could not be started: its command was not found (/nonexistent/mcp-server).',
    });
    const untrusted: McpServerSpec = { ...missing, trusted: false };
    expect(await pool.refresh(untrusted)).toMatchObject({
      state: "failed",
      error: expect.stringMatching(/is a command/),
    });
  });

  it("counts connecting against a call's time limit, and close ends a server that never answers", async () => {
    const silent: McpServerSpec = {
      name: "silent",
      trusted: true,
      command: process.execPath,
      args: ["-e", "process.stdin.resume(); setInterval(() => {}, 1000)"],
    };
    const started = Date.now();
    expect(await call(silent, "anything", {}, 300)).toEqual({
      ok: false,
      error: `MCP server "silent" did not connect within the call's 300 ms.`,
    });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(pool.status(silent).state).toBe("connecting");
    const closing = Date.now();
    await pool.close(silent);
    expect(Date.now() - closing).toBeLessThan(5000);
    expect(pool.status(silent)).toEqual({ state: "idle" });
  });

  it("keeps a chatty server's stderr out of the app's log past its cap", async () => {
    const quiet = poolWith({ maxStderrBytes: 1000 });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      expect((await quiet.call(fixtureStdio("chatty"), "shout", { bytes: 200_000 }, { timeoutMs: 5000 })).ok).toBe(
        true,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const logged = warn.mock.calls
        .map(([line]) => String(line))
        .filter((line) => line.startsWith('MCP server "chatty"'));
      expect(logged.join("\n").length).toBeLessThan(2000);
      expect(logged.at(-1)).toMatch(/stderr past 1000 bytes is not logged/);
    } finally {
      warn.mockRestore();
    }
  });
});

/** An HTTP server that answers the handshake and then breaks the protocol in the way each tool's name says. */
function brokenServer(): Promise<{
  url: string;
  written: () => number;
  headers: () => http.IncomingHttpHeaders;
  close: () => void;
}> {
  let written = 0;
  let headers: http.IncomingHttpHeaders = {};
  const server = http.createServer(async (request, response) => {
    headers = request.headers;
    if (request.method !== "POST") return response.writeHead(405).end();
    // To the cloud's metadata service: the SDK follows only same-origin redirects, each through the guarded fetch.
    if (request.url === "/moved") return response.writeHead(307, { location: "http://169.254.169.254/mcp" }).end();
    let body = "";
    for await (const chunk of request) body += chunk;
    const message = JSON.parse(body);
    if (message.id === undefined) return response.writeHead(202).end();
    const reply = (result: unknown) =>
      response
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    if (message.method === "initialize")
      return reply({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "broken", version: "1" },
      });
    if (message.method === "tools/list")
      return reply({
        tools: ["error500", "garbage", "hangup", "huge"].map((name) => ({ name, inputSchema: { type: "object" } })),
      });
    switch (message.params?.name) {
      case "error500":
        return response.writeHead(500, { "content-type": "text/plain" }).end("the database is down");
      case "garbage":
        return response.writeHead(200, { "content-type": "application/json" }).end("{ this is not json");
      case "hangup":
        return response.socket?.destroy();
      case "huge": {
        response.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        const prefix = `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`;
        response.write(prefix);
        // 20 MB, written as the client reads: what it does not read is never sent.
        for (let sent = 0; sent < 20 * 1024 * 1024 && !response.destroyed; sent += chunk.length) {
          written += chunk.length;
          if (!response.write(chunk))
            await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
        }
        return response.end('"}]}}');
      }
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
        written: () => written,
        headers: () => headers,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

describe("a server that breaks the protocol over HTTP", () => {
  let broken: Awaited<ReturnType<typeof brokenServer>>;
  let spec: McpServerSpec;
  beforeAll(async () => {
    broken = await brokenServer();
    spec = { name: "broken", trusted: false, url: broken.url };
  });
  afterAll(() => broken?.close());

  it("answers a 500, a body that is not JSON, a dropped connection and a 20 MB result with sentences", async () => {
    const small = poolWith({ maxMessageBytes: 1024 * 1024, privateHosts: ["127.0.0.1"] });
    const at = (tool: string) => small.call(spec, tool, {}, { timeoutMs: 5000 });
    expect(await at("error500")).toEqual({
      ok: false,
      error: 'MCP server "broken" answered HTTP 500 while calling a tool: the database is down',
    });
    expect(await at("garbage")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^MCP server "broken" sent a malformed answer/),
    });
    expect(await at("hangup")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^MCP server "broken" dropped the connection/),
    });
    expect(await at("huge")).toEqual({
      ok: false,
      error: 'MCP server "broken" sent a message over the 1 MB limit. The call did not finish.',
    });
    // Cut on the wire: what was sent is the limit and what the sockets buffer, not the 20 MB.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(broken.written()).toBeLessThan(8 * 1024 * 1024);
    expect((await small.tools(spec)).map((tool) => tool.name)).toContain("huge");
  });

  it("sends the entry's headers, but none that would forge the connection", async () => {
    const headers = {
      Authorization: "Bearer person",
      "X-Team": "blue",
      Host: "evil.example",
      "Transfer-Encoding": "x",
    };
    expect(await pool.tools({ ...spec, name: "headers", headers })).toHaveLength(4);
    expect(broken.headers()).toMatchObject({
      authorization: "Bearer person",
      "x-team": "blue",
      host: new URL(broken.url).host,
    });
    expect(broken.headers()["transfer-encoding"]).toBeUndefined();
  });

  it("does not follow a redirect to another host", async () => {
    const moved: McpServerSpec = { name: "moved", trusted: false, url: broken.url.replace(/\/mcp$/, "/moved") };
    await expect(pool.tools(moved)).rejects.toThrow(
      /^MCP server "moved" answered HTTP 307 while connecting: Redirect to http:\/\/169\.254\.169\.254\/mcp not followed/,
    );
  });

  it("names an unknown host and a closed port", async () => {
    const resolver = async (host: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    const nowhere = poolWith({}, resolver);
    expect(
      await nowhere.call(
        { name: "lost", trusted: true, url: "http://mcp.nowhere.test/mcp" },
        "x",
        {},
        { timeoutMs: 2000 },
      ),
    ).toEqual({
      ok: false,
      error: 'MCP server "lost" cannot be found: its host name does not resolve (http://mcp.nowhere.test/mcp).',
    });
    await expect(pool.tools({ name: "closed", trusted: true, url: "http://127.0.0.1:9/mcp" })).rejects.toThrow(
      'MCP server "closed" refused the connection (nothing listens there) (http://127.0.0.1:9/mcp).',
    );
  });
});

describe("Toolsmith's own /api/mcp as a person's server", () => {
  let app: AppServer;
  let token: string;
  beforeAll(async () => {
    app = scriptedApp("http://127.0.0.1:9/v1");
    await app.start();
    const api = new Api(app.url);
    token = (await api.createToken("mcp client")).token;
    const created = await fetch(`${app.url}/api/tools`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "slugify",
        description: "Turn a title into a URL slug.",
        parameters_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
        code: "function run({ title }) { return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-'); }",
      }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => app?.stop());

  it("lists and calls a library tool with the bearer header", async () => {
    const spec: McpServerSpec = {
      name: "library",
      trusted: false,
      url: `${app.url}/api/mcp`,
      headers: { authorization: `Bearer ${token}` },
    };
    expect(await pool.tools(spec)).toEqual([
      expect.objectContaining({
        qualifiedName: "library__slugify",
        description: "Turn a title into a URL slug.",
        annotations: { readOnlyHint: true, openWorldHint: false },
      }),
    ]);
    expect(await pool.call(spec, "slugify", { title: "Hello MCP Client" }, { timeoutMs: 10_000 })).toMatchObject({
      ok: true,
      isError: false,
      content: [{ type: "text", text: "hello-mcp-client" }],
    });
  });

  it("says the server refused it without the token, and a changed header is a new connection", async () => {
    const spec: McpServerSpec = {
      name: "library",
      trusted: false,
      url: `${app.url}/api/mcp`,
      headers: { authorization: "Bearer tsk_wrong" },
    };
    await expect(pool.tools(spec)).rejects.toThrow(
      /^MCP server "library" answered HTTP 401 while connecting: The API token is not valid or was revoked\..* Check the headers \(the token\) it is given\.$/,
    );
    expect(pool.status(spec)).toMatchObject({ state: "failed" });
    expect(pool.status({ ...spec, headers: { authorization: `Bearer ${token}` } })).toMatchObject({ state: "ready" });
  });
});
