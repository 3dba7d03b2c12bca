import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

/** The native tools document's own profiles, as it writes them, and one with the tools that are off by default. */
const CONFIG = `profiles:
  - name: researcher
    tools: [read_file, list_dir]
    tool_config:
      read_file:
        allowed_paths: ["/data/research/**"]
      list_dir:
        allowed_paths: ["/data/research/**"]
  - name: writer
    tools: [write_file, list_dir, send_email]
    tool_config:
      write_file:
        allowed_paths: ["/output/**"]
      list_dir:
        allowed_paths: ["/output/**"]
      send_email:
        allowed_recipients: ["team@example.com"]
  - name: operator
    tools: [write_file, run_command]
default_profile: operator
`;

const model = new ModelServer();
/** The built-in default profile. */
let app: AppServer;
/** CONFIG's profiles, sending email to `mail`. */
let profiled: AppServer;
const mail = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, _session, done) {
    let data = "";
    stream.on("data", (chunk: Buffer) => (data += chunk));
    stream.on("end", () => (received.push(data), done()));
  },
});
const received: string[] = [];

beforeAll(async () => {
  await model.start();
  await new Promise<void>((resolve) => mail.listen(0, "127.0.0.1", resolve));
  const configFile = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(configFile, CONFIG);
  app = scriptedApp(model.url);
  profiled = scriptedApp(model.url, {
    TOOLSMITH_CONFIG: configFile,
    SMTP_URL: `smtp://127.0.0.1:${(mail.server.address() as AddressInfo).port}`,
  });
  await Promise.all([app.start(), profiled.start()]);
});
afterAll(async () => {
  await Promise.all([app?.stop(), profiled?.stop()]);
  await new Promise<void>((resolve) => mail.close(() => resolve()));
  await model.stop();
});

let prompts = 0;
/** One run in which the model makes these calls; their results, in call order. */
async function call(client: Api, conversationId: string, ...calls: { name: string; args: Record<string, unknown> }[]) {
  const prompt = `Native tools, run ${++prompts}.`;
  model.script(prompt, [{ toolCalls: calls }, { text: "Done." }]);
  const events = await client.run(conversationId, prompt);
  // Calls run in parallel: match each result to its call.
  const results = ofType(events, "tool_result");
  return ofType(events, "tool_call").map((toolCall) => results.find((result) => result.callId === toolCall.callId)!);
}

describe("key_value tools", () => {
  it("keep JSON values per conversation, or in a named namespace of one person, and forget expired keys", async () => {
    const alice = new Api(app.url);
    const [a, b] = [await alice.createConversation(), await alice.createConversation()];
    const [stored] = await call(alice, a.id, {
      name: "key_value_set",
      args: { key: "colour", value: { name: "teal", rgb: [0, 128, 128] } },
    });
    expect(stored).toMatchObject({ ok: true, output: { success: true, expires_at: null } });
    expect((await call(alice, a.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { found: true, value: { name: "teal", rgb: [0, 128, 128] } },
    });
    // another conversation has its own keys
    expect((await call(alice, b.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { value: null, found: false },
    });

    // a named namespace is shared by the person's conversations, and by nobody else's
    await call(alice, a.id, { name: "key_value_set", args: { key: "plan", value: "ship it", namespace: "team" } });
    expect(
      (await call(alice, b.id, { name: "key_value_get", args: { key: "plan", namespace: "team" } }))[0],
    ).toMatchObject({ output: { found: true, value: "ship it" } });
    const bob = new Api(app.url);
    const theirs = await bob.createConversation();
    expect(
      (await call(bob, theirs.id, { name: "key_value_get", args: { key: "plan", namespace: "team" } }))[0],
    ).toMatchObject({ output: { value: null, found: false } });

    // the document's ttl, in seconds, and Toolsmith's older name for it
    const expiring = await call(
      alice,
      a.id,
      { name: "key_value_set", args: { key: "soon", value: 1, ttl: 1 } },
      { name: "key_value_set", args: { key: "also-soon", value: 2, ttl_seconds: 1 } },
      { name: "key_value_set", args: { key: "unsure", value: 3, ttl: 1, ttl_seconds: 2 } },
    );
    expect(expiring.map((result) => result.output)).toEqual([
      { success: true, expires_at: expect.any(String) },
      { success: true, expires_at: expect.any(String) },
      undefined,
    ]);
    expect(expiring[2]).toMatchObject({ ok: false, error: expect.stringContaining("give one of them") });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const expired = await call(
      alice,
      a.id,
      { name: "key_value_get", args: { key: "soon" } },
      { name: "key_value_get", args: { key: "also-soon" } },
    );
    expect(expired.map((result) => result.output)).toEqual([
      { value: null, found: false },
      { value: null, found: false },
    ]);

    expect((await call(alice, a.id, { name: "key_value_delete", args: { key: "colour" } }))[0]).toMatchObject({
      output: { deleted: true },
    });
    expect((await call(alice, a.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { value: null, found: false },
    });
  });

  it("refuse oversized values and namespaces that are not names", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const [big, badSpace] = await call(
      client,
      id,
      { name: "key_value_set", args: { key: "big", value: "x".repeat(70 * 1024) } },
      { name: "key_value_set", args: { key: "k", value: 1, namespace: "../other" } },
    );
    expect(big).toMatchObject({ ok: false, error: expect.stringContaining("over 64 KB") });
    expect(badSpace).toMatchObject({ ok: false, error: expect.stringContaining("namespace") });
  });
});

describe("librarian tools", () => {
  it("are offered by the default profile and store, read, query and search XML through a run", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const thread =
      '<thread><message from="greeter" timestamp="2024-01-16T09:00:00Z">Welcome, error handling is on page 3</message></thread>';
    const [stored] = await call(client, id, {
      name: "librarian_store",
      args: { collection: "/db/agents/greeter", document_name: "conversation-001.xml", content: thread },
    });
    expect(stored).toMatchObject({
      ok: true,
      output: { path: "/db/agents/greeter/conversation-001.xml", created: true },
    });
    const [read, queried, searched] = await call(
      client,
      id,
      { name: "librarian_get", args: { path: "/db/agents/greeter/conversation-001.xml" } },
      {
        name: "librarian_query",
        args: {
          query: "for $m in //message where $m/@timestamp > $since return $m/@from/string()",
          variables: { since: "2024-01-15T00:00:00Z" },
        },
      },
      { name: "librarian_search", args: { query: "error handling", collection: "/db/agents" } },
    );
    expect(read).toMatchObject({ ok: true, output: { content: thread } });
    expect(queried).toMatchObject({ ok: true, output: { results: ["greeter"], documents_read: 1 } });
    expect(searched).toMatchObject({
      ok: true,
      output: {
        results: [
          {
            path: "/db/agents/greeter/conversation-001.xml",
            snippet: expect.stringContaining("**error** **handling**"),
          },
        ],
      },
    });
    // another person sees none of it
    const stranger = new Api(app.url);
    const theirs = await stranger.createConversation();
    expect(
      (await call(stranger, theirs.id, { name: "librarian_search", args: { query: "error handling" } }))[0],
    ).toMatchObject({ output: { results: [] } });
  });
});

/** A conversation of `client` under that profile of `profiled`. */
const conversationOf = async (client: Api, profile: string) => (await client.createConversation(profile)).id;
const switchProfile = (client: Api, conversationId: string, profile: string) =>
  client.fetch(`/api/conversations/${conversationId}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ profile }),
  });

describe("the file tools, with the native tools document's paths", () => {
  it("take /data/config.yaml from the workspace's root, as a chroot would, and never leave it", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const [written] = await call(client, id, {
      name: "write_file",
      args: { path: "/data/config.yaml", content: "mode: fast\n" },
    });
    expect(written).toMatchObject({ ok: true, output: { bytes_written: 11 } });
    const [read, relative, listed, escaped] = await call(
      client,
      id,
      { name: "read_file", args: { path: "/data/config.yaml" } },
      { name: "read_file", args: { path: "data/config.yaml" } },
      { name: "list_dir", args: { path: "/data", pattern: "*.yaml" } },
      { name: "read_file", args: { path: "/../../etc/passwd" } },
    );
    expect(read).toMatchObject({ ok: true, output: { content: "mode: fast\n", encoding: "utf-8" } });
    expect(relative.output).toEqual(read.output);
    expect(listed).toMatchObject({ ok: true, output: { entries: [{ name: "config.yaml", type: "file", size: 11 }] } });
    expect(escaped).toMatchObject({
      ok: false,
      error: expect.stringContaining("outside this conversation's workspace"),
    });
  });

  it("read_file reads the encoding named, utf-8 by default, and refuses one Node does not know", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const latin1 = Buffer.from("café £5", "latin1");
    await call(client, id, {
      name: "write_file",
      args: { path: "/data/menu.txt", content: latin1.toString("base64"), encoding: "base64" },
    });
    const [asUtf8, asLatin1, asBase64, asBinary, unknown] = await call(
      client,
      id,
      { name: "read_file", args: { path: "/data/menu.txt" } },
      { name: "read_file", args: { path: "/data/menu.txt", encoding: "latin1" } },
      { name: "read_file", args: { path: "/data/menu.txt", encoding: "base64" } },
      { name: "read_file", args: { path: "/data/menu.txt", binary: true } },
      { name: "read_file", args: { path: "/data/menu.txt", encoding: "klingon" } },
    );
    expect(asUtf8).toMatchObject({ ok: false, error: expect.stringContaining("is not UTF-8 text; name its encoding") });
    expect(asLatin1).toMatchObject({ ok: true, output: { content: "café £5", encoding: "latin1", size: 7 } });
    expect(asBase64).toMatchObject({ ok: true, output: { content: latin1.toString("base64"), encoding: "base64" } });
    expect(asBinary.output).toEqual(asBase64.output);
    expect(unknown).toMatchObject({
      ok: false,
      error: expect.stringContaining('encoding: "klingon" is not an encoding Node supports; use utf-8,'),
    });
  });

  it("keep the document's allowed_paths globs: the researcher reads /data/research/**, the writer writes /output/**", async () => {
    const client = new Api(profiled.url);
    const id = await conversationOf(client, "operator");
    await call(
      client,
      id,
      { name: "write_file", args: { path: "/data/research/paper.md", content: "findings" } },
      { name: "write_file", args: { path: "/data/secret.txt", content: "keys" } },
    );
    expect((await switchProfile(client, id, "researcher")).status).toBe(200);
    const [paper, secret, root, research, elsewhere] = await call(
      client,
      id,
      { name: "read_file", args: { path: "/data/research/paper.md" } },
      { name: "read_file", args: { path: "/data/secret.txt" } },
      { name: "list_dir", args: { path: "/" } },
      { name: "list_dir", args: { path: "/data/research" } },
      { name: "list_dir", args: { path: "/output" } },
    );
    expect(paper).toMatchObject({ ok: true, output: { content: "findings" } });
    expect(secret).toMatchObject({
      ok: false,
      error: '"/data/secret.txt" (/data/secret.txt) is not in the paths this profile allows (/data/research/**).',
    });
    // the folders on the way to what is allowed, and nothing beside them
    expect(root.output).toMatchObject({ entries: [{ name: "data", type: "dir" }] });
    expect(research.output).toMatchObject({ entries: [{ name: "paper.md", type: "file" }] });
    expect(elsewhere).toMatchObject({
      ok: false,
      error: expect.stringContaining("not in the paths this profile allows"),
    });

    const writer = await conversationOf(client, "writer");
    const [result, outside, listed] = await call(
      client,
      writer,
      { name: "write_file", args: { path: "/output/result.txt", content: "Hello, world!" } },
      { name: "write_file", args: { path: "/logs/agent.log", content: "New entry\n", mode: "append" } },
      { name: "list_dir", args: { path: "/logs" } },
    );
    expect(result).toMatchObject({ ok: true, output: { bytes_written: 13 } });
    expect(outside).toMatchObject({
      ok: false,
      error: '"/logs/agent.log" (/logs/agent.log) is not in the paths this profile allows (/output/**).',
    });
    expect(listed).toMatchObject({ ok: false, error: expect.stringContaining("not in the paths this profile allows") });
    expect((await call(client, writer, { name: "list_dir", args: { path: "/" } }))[0].output).toMatchObject({
      entries: [{ name: "output", type: "dir" }],
    });
  });
});

describe("send_email", () => {
  it("sends body as HTML with html: true, as the document says, and answers its message_id", async () => {
    const client = new Api(profiled.url);
    const id = await conversationOf(client, "writer");
    const [html, plain, refused] = await call(
      client,
      id,
      {
        name: "send_email",
        args: { to: "team@example.com", subject: "Report Ready", body: "<p>Your <b>daily</b> report.</p>", html: true },
      },
      { name: "send_email", args: { to: ["team@example.com"], subject: "Plain", body: "Your daily report." } },
      { name: "send_email", args: { to: "mallory@evil.test", subject: "x", body: "y" } },
    );
    expect(html).toMatchObject({ ok: true, output: { message_id: expect.stringMatching(/^<.+>$/) } });
    expect(plain).toMatchObject({ ok: true, output: { message_id: expect.stringMatching(/^<.+>$/) } });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining("not among the recipients") });
    const message = (result: typeof html) =>
      received.find((data) => data.includes(`Message-ID: ${(result.output as { message_id: string }).message_id}`))!;
    expect(message(html)).toMatch(/^Content-Type: text\/html/m);
    expect(message(html)).toContain("<p>Your <b>daily</b> report.</p>");
    expect(message(plain)).toMatch(/^Content-Type: text\/plain/m);
    expect(received).toHaveLength(2);
  });
});

describe("run_command", () => {
  it("runs in the document's cwd, a folder of the workspace, and refuses one outside it with the reason", async () => {
    const client = new Api(profiled.url);
    const id = await conversationOf(client, "operator");
    await call(client, id, { name: "write_file", args: { path: "/data/input.csv", content: "a,b\n1,2\n" } });
    const [listed, counted, outside, missing] = await call(
      client,
      id,
      { name: "run_command", args: { command: "ls", cwd: "/data" } },
      { name: "run_command", args: { command: "wc -l input.csv", cwd: "data" } },
      { name: "run_command", args: { command: "ls", cwd: "../" } },
      { name: "run_command", args: { command: "ls", cwd: "/reports" } },
    );
    expect(listed).toMatchObject({
      ok: true,
      output: { exit_code: 0, stdout: "input.csv\n", stderr: "", timed_out: false },
    });
    expect(counted).toMatchObject({ ok: true, output: { stdout: "2 input.csv\n" } });
    expect(outside).toMatchObject({ ok: false, error: `cwd: "../" is outside this conversation's workspace.` });
    expect(missing).toMatchObject({ ok: false, error: expect.stringContaining("does not exist in the workspace") });
  });

  it("answers a command that runs past its timeout with its output so far and timed_out: true", async () => {
    const client = new Api(profiled.url);
    const id = await conversationOf(client, "operator");
    const [slow] = await call(client, id, {
      name: "run_command",
      args: { command: 'sh -c "echo started; echo still going >&2; sleep 30"', timeout: 1 },
    });
    expect(slow).toMatchObject({
      ok: true,
      output: { exit_code: 137, stdout: "started\n", stderr: "still going\n", timed_out: true },
    });
  });
});
