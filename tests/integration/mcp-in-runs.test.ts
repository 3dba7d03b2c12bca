import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolCallTraceparent } from "@/lib/platform/trace-ids";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { freePort, scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

const EVERYTHING = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FIXTURE = path.resolve("tests/support/mcp-fixture-server.mjs");

/* The operator's servers: the third-party reference server and the fixture, over stdio; one that cannot start. */
const CONFIG = `mcp_servers:
  - name: everything
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
  - name: fixture
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE)}]
    env: { FIXTURE_TOOLS: "4" }
  - name: broken
    command: /nonexistent/mcp-server
profiles:
  - name: connected
    tools: [calculate]
    mcp_servers: [everything, fixture, broken]
  - name: trusting
    tools: [calculate]
    mcp_servers: [fixture]
    mcp_tools: [fixture__echo, fixture__meta]
    approve_mcp_tools: never
  - name: plain
    tools: [calculate]
default_profile: connected
`;

const model = new ModelServer();
let app: AppServer;
let api: Api;

beforeAll(async () => {
  await model.start();
  const file = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(file, CONFIG);
  // A person's own servers may be on loopback here (an intranet's, in real use).
  app = scriptedApp(model.url, { TOOLSMITH_CONFIG: file, TOOLSMITH_MCP_PRIVATE_HOSTS: "127.0.0.1" });
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const conversation = async (profile: string) =>
  (
    await (
      await api.fetch("/api/conversations", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ profile }),
      })
    ).json()
  ).id as string;

describe("MCP servers' tools in a run", () => {
  it("offers the tools that fit the message, calls one through its server, and the card says which answered", async () => {
    const id = await conversation("connected");
    const prompt = "Echo the words 'hello there' back to me.";
    model.script(prompt, [
      { toolCalls: [{ name: "everything__echo", args: { message: "hello there" } }] },
      { text: "It said hello there." },
    ]);
    const events = await api.run(id, prompt);
    // A server's 20-odd tools do not flood the model: those that fit the message are offered, echo among them.
    const offered = model.toolsOffered(prompt);
    expect(offered).toContain("everything__echo");
    expect(offered.filter((name) => name.includes("__")).length).toBeLessThan(10);
    const [result] = ofType(events, "tool_result");
    expect(result).toMatchObject({ name: "everything__echo", ok: true, server: "everything" });
    expect(String(result.output)).toContain("hello there");
    // echo says it only reads: no one was asked.
    expect(ofType(events, "approval_requested")).toEqual([]);
    expect(events.at(-1)?.data.status).toBe("completed");
    const audit = await (await api.fetch("/api/audit")).json();
    expect(audit.entries[0]).toMatchObject({ tool: "everything__echo", decision: "allowed", outcome: "succeeded" });
  });

  it("asks a person before a tool that does not say it only reads, and passes the call's traceparent on", async () => {
    const id = await conversation("connected");
    const prompt = "Show me the request metadata.";
    model.script(prompt, [{ toolCalls: [{ name: "fixture__meta", args: {} }] }, { text: "Done." }]);
    const requested = (
      await readSse(await api.send(id, prompt), (message) => message.data.type === "approval_requested")
    ).at(-1)!;
    expect(requested.data).toMatchObject({ type: "approval_requested", tool: "fixture__meta" });
    await api.answerApproval(id, requested.data.approvalId as string, true);
    const events = await readSse(await api.events(id, requested.id));
    const [result] = ofType(events, "tool_result");
    expect(result).toMatchObject({ name: "fixture__meta", ok: true, server: "fixture" });
    const { runId, step, callId } = requested.data as unknown as { runId: string; step: number; callId: string };
    const traceparent = toolCallTraceparent(runId, step, callId);
    expect(String(result.output)).toContain(traceparent);
  });

  it("lets search_tools find more of the servers' tools, and says which server could not be listed", async () => {
    const id = await conversation("connected");
    const prompt = "I need something.";
    model.script(prompt, [
      { toolCalls: [{ name: "search_tools", args: { query: "add two numbers together" } }] },
      { toolCalls: [{ name: "everything__get-sum", args: { a: 2, b: 40 } }] },
      { text: "42." },
    ]);
    const events = await api.run(id, prompt);
    const [search, sum] = ofType(events, "tool_result");
    const output = search.output as { mcp_tools: { name: string; server: string }[]; unavailable_servers: string[] };
    expect(output.mcp_tools.map((tool) => tool.name)).toContain("everything__get-sum");
    expect(output.unavailable_servers.join(" ")).toContain('"broken"');
    expect(sum).toMatchObject({ ok: true, server: "everything" });
    expect(String(sum.output)).toContain("42");
  });

  it("starts without a person's own server that never answers, and says so to search_tools", async () => {
    // Accepts connections and never answers a byte.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const added = await api.fetch("/api/mcp-servers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "silent", url: `http://127.0.0.1:${port}/mcp`, bearerToken: "s3cret" }),
      });
      expect(added.status).toBe(201);
      const id = await conversation("connected");
      const prompt = "Find me a tool for the silent server.";
      model.script(prompt, [
        { toolCalls: [{ name: "search_tools", args: { query: "anything at all" } }] },
        { text: "It is not answering." },
      ]);
      const started = performance.now();
      const events = await api.run(id, prompt);
      expect(performance.now() - started).toBeLessThan(8_000);
      expect(events.at(-1)?.data.status).toBe("completed");
      const [search] = ofType(events, "tool_result");
      expect((search.output as { unavailable_servers: string[] }).unavailable_servers.join(" ")).toContain(
        'MCP server "silent" did not list its tools',
      );
      expect((await api.fetch(`/api/mcp-servers/${(await added.json()).id}`, { method: "DELETE" })).status).toBe(204);
    } finally {
      silent.close();
    }
  });

  it("says a tool's server is unavailable, and why, when the model calls a tool of a server that is down", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const gone = await expectJson(await sendJson(api, "/api/mcp-servers", "POST", { name: "gone", url }), 201);
    try {
      const id = await conversation("connected");
      const prompt = "Echo 'hi' through the servers that are down.";
      model.script(prompt, [
        { toolCalls: [{ name: "gone__echo", args: { text: "hi" } }] },
        { toolCalls: [{ name: "broken__run", args: {} }] },
        { text: "Neither server is up." },
      ]);
      const [refused, unstarted] = ofType(await api.run(id, prompt), "tool_result");
      expect(refused).toMatchObject({
        ok: false,
        error:
          `"gone__echo" cannot be called now: its MCP server is unavailable. ` +
          `MCP server "gone" refused the connection (nothing listens there) (${url}).`,
      });
      expect(unstarted).toMatchObject({
        ok: false,
        error:
          `"broken__run" cannot be called now: its MCP server is unavailable. ` +
          `MCP server "broken" could not be started: its command was not found (/nonexistent/mcp-server).`,
      });
    } finally {
      expect((await sendJson(api, `/api/mcp-servers/${gone.id}`, "DELETE")).status).toBe(204);
    }
  });

  it("shows each server's connection and tools to its person, once runs used it: connected with its list, or why not", async () => {
    const servers = (await (await api.fetch("/api/mcp-servers")).json()) as {
      name: string;
      source: string;
      status?: { state: string; message?: string };
      tools?: { name: string }[];
    }[];
    const byName = Object.fromEntries(servers.map((server) => [server.name, server]));
    expect(byName.everything).toMatchObject({ source: "file", status: { state: "connected" } });
    expect(byName.everything.tools!.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(byName.broken).toMatchObject({ status: { state: "failed", message: expect.stringContaining('"broken"') } });
  });

  it("shows an image a tool answers with, and the model reads a line about it", async () => {
    const id = await conversation("connected");
    const prompt = "Get the tiny image.";
    model.script(prompt, [{ toolCalls: [{ name: "everything__get-tiny-image", args: {} }] }, { text: "Here." }]);
    // It says it only reads: it runs unasked.
    const events = await api.run(id, prompt);
    expect(ofType(events, "approval_requested")).toEqual([]);
    const [result] = ofType(events, "tool_result");
    expect(result.ok).toBe(true);
    expect(result.images).toEqual([{ mimeType: "image/png", data: expect.stringMatching(/^[A-Za-z0-9+/=]+$/) }]);
    expect(String(result.output)).toMatch(/\[image image\/png, [\d.]+ (B|KB)\]/);
  });

  it("keeps to the profile: only the tools it lists, never asked when it says so, none for a profile without servers", async () => {
    const id = await conversation("trusting");
    const prompt = "Echo 'x', trustingly.";
    model.script(prompt, [
      { toolCalls: [{ name: "fixture__sleep", args: { ms: 1 } }] },
      { toolCalls: [{ name: "fixture__echo", args: { text: "x" } }] },
      { text: "Done." },
    ]);
    const events = await api.run(id, prompt);
    expect(model.toolsOffered(prompt).filter((name) => name.includes("__"))).toEqual([
      "fixture__echo",
      "fixture__meta",
    ]);
    const [sleep, echo] = ofType(events, "tool_result");
    expect(sleep).toMatchObject({
      ok: false,
      error: expect.stringContaining('There is no tool named "fixture__sleep"'),
    });
    expect(echo).toMatchObject({ ok: true, server: "fixture" });
    expect(ofType(events, "approval_requested")).toEqual([]);

    const plain = await conversation("plain");
    const plainPrompt = "Echo 'y' plainly.";
    model.script(plainPrompt, [{ text: "No servers here." }]);
    await api.run(plain, plainPrompt);
    expect(model.toolsOffered(plainPrompt).filter((name) => name.includes("__"))).toEqual([]);
  });
});
