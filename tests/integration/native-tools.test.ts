import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { BUILTIN_TOOL_NAMES } from "@/lib/tools/names";
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
  - name: guarded
    tools: [run_command, send_email, fetch_url, webhook, read_file, librarian_get, run_code]
    tool_config:
      run_command:
        allowed_commands: [ls]
      send_email:
        allowed_recipients: ["team@example.com"]
      fetch_url:
        allowed_domains: [example.com]
      webhook:
        allowed_domains: [example.com]
      read_file:
        allowed_paths: ["/data/**"]
      librarian_get:
        allowed_paths: ["/db/shared"]
  - name: everything
    tools: [${BUILTIN_TOOL_NAMES.join(", ")}]
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

describe("the audit log of the profiles' refusals", () => {
  it("logs each call a profile or the app's policy refused as refused, with the tool's reason, and a failure as allowed", async () => {
    const client = new Api(profiled.url);
    const id = await conversationOf(client, "guarded");
    const results = await call(
      client,
      id,
      { name: "run_command", args: { command: "cat /etc/passwd" } },
      { name: "run_command", args: { command: "ls" } },
      { name: "run_command", args: { command: "ls", cwd: "../" } },
      { name: "send_email", args: { to: "mallory@evil.test", subject: "x", body: "y" } },
      { name: "fetch_url", args: { url: "https://evil.test/steal" } },
      { name: "webhook", args: { url: "http://127.0.0.1:1/hook", payload: {} } },
      { name: "read_file", args: { path: "/secret.txt" } },
      { name: "read_file", args: { path: "/data/missing.txt" } },
      { name: "librarian_get", args: { path: "/db/private/notes.xml" } },
      { name: "run_code", args: { code: "eval('1')" } },
    );
    expect(results.map((result) => result.ok)).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    const { entries } = await (await client.fetch(`/api/audit?conversation=${id}&limit=50`)).json();
    const logged = (entries as { tool: string; decision: string; reason: string | null; outcome: string | null }[]).map(
      ({ tool, decision, reason, outcome }) => ({ tool, decision, reason, outcome }),
    );
    const refused = (tool: string, reason: string | RegExp) => ({
      tool,
      decision: "refused",
      reason: typeof reason === "string" ? reason : expect.stringMatching(reason),
      outcome: null,
    });
    const expected = [
      refused("run_command", "cat is not among the commands this profile allows (ls)."),
      { tool: "run_command", decision: "allowed", reason: null, outcome: "succeeded" },
      refused("run_command", `cwd: "../" is outside this conversation's workspace.`),
      refused("send_email", "mallory@evil.test is not among the recipients this profile allows (team@example.com)."),
      refused(
        "fetch_url",
        /^fetch_url GET https:\/\/evil\.test\/steal was refused: evil\.test is not among the domains/,
      ),
      refused("webhook", /^webhook POST http:\/\/127\.0\.0\.1:1\/hook was refused: .*127\.0\.0\.1/),
      refused("read_file", '"/secret.txt" (/secret.txt) is not in the paths this profile allows (/data/**).'),
      // A missing file is the tool's failure, not a refusal: the call was allowed and ran.
      { tool: "read_file", decision: "allowed", reason: null, outcome: "failed" },
      refused("librarian_get", /\/db\/private is not in the collections this profile allows \(\/db\/shared\)/),
      refused("run_code", /^Code refused by policy: line 1/),
    ];
    expect(logged).toHaveLength(expected.length);
    expect(logged).toEqual(expect.arrayContaining(expected));
  });
});

/** A parameters schema with its parts in $defs, as people and other tools' generators write them. */
const WITH_DEFS = {
  type: "object",
  properties: {
    from: { $ref: "#/$defs/Point", description: "Where the line starts." },
    to: { $ref: "#/$defs/Point" },
  },
  required: ["from", "to"],
  $defs: {
    Point: { type: "object", properties: { x: { $ref: "#/$defs/Coordinate" }, y: { $ref: "#/$defs/Coordinate" } } },
    Coordinate: { type: "number" },
  },
};
const DISTANCE_CODE = "function run({ from, to }) { return Math.hypot(to.x - from.x, to.y - from.y); }";

describe("tool schemas as the model is shown them", () => {
  it("hold no $ref or $defs: every built-in in every profile, and a stored tool whose schema has $defs", async () => {
    const offers: { profile: string; tools: { function: { name: string; parameters?: unknown } }[] }[] = [];
    for (const [server, profiles] of [
      [app, ["default"]],
      [profiled, ["researcher", "writer", "operator", "guarded", "everything"]],
    ] as const) {
      const client = new Api(server.url);
      for (const profile of profiles) {
        const prompt = `Schemas of ${profile} on ${server.url}.`;
        model.script(prompt, [{ text: "Nothing to do." }]);
        await client.run(await conversationOf(client, profile), prompt);
        offers.push({ profile, tools: model.requestsFor(prompt)[0].tools! });
      }
    }
    const names = new Set(offers.flatMap(({ tools }) => tools.map((tool) => tool.function.name)));
    expect([...names].sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
    for (const { profile, tools } of offers)
      for (const tool of tools)
        expect(JSON.stringify(tool.function.parameters), `${profile}: ${tool.function.name}`).not.toMatch(
          /"\$(ref|defs|dynamicRef)"|"definitions"/,
        );
    // register_tool's examples, once a $ref to ToolExample: written out, with their fields.
    const registerTool = offers[0].tools.find((tool) => tool.function.name === "register_tool")!;
    expect(registerTool.function.parameters).toMatchObject({
      properties: { examples: { items: { properties: { input: {}, expected_output: {} } } } },
    });

    // A tool the model registers with $defs is offered, from the next step, written out; its calls still check.
    const client = new Api(app.url);
    const id = await conversationOf(client, "default");
    const prompt = "Register a distance tool with $defs.";
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "distance",
              description: "Distance between points.",
              parameters_schema: WITH_DEFS,
              code: DISTANCE_CODE,
            },
          },
        ],
      },
      { toolCalls: [{ name: "distance", args: { from: { x: 0, y: 0 }, to: { x: 3, y: 4 } } }] },
      { text: "5." },
    ]);
    const events = await client.run(id, prompt);
    expect(ofType(events, "tool_result").map((result) => result.output ?? result.error)).toEqual([
      expect.anything(),
      5,
    ]);
    const offered = model.requestsFor(prompt)[1].tools!.find((tool) => tool.function.name === "distance")!;
    const point = { type: "object", properties: { x: { type: "number" }, y: { type: "number" } } };
    expect(offered.function.parameters).toEqual({
      type: "object",
      properties: { from: { ...point, description: "Where the line starts." }, to: point },
      required: ["from", "to"],
    });
  });

  it("refuses a parameters schema that refers to itself (422), since it cannot be written out, and says how to fix it", async () => {
    const client = new Api(app.url);
    const recursive = {
      type: "object",
      properties: { tree: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
    };
    const tool = {
      name: "tree_size",
      description: "Count a tree's nodes.",
      parameters_schema: recursive,
      code: "function run() { return 1; }",
    };
    const refused = await expectJson(await sendJson(client, "/api/tools", "POST", tool), 422);
    expect(refused.error.message).toBe(
      'Invalid parameters_schema: /properties/tree/properties/children/items: $ref "#/$defs/Node" refers to itself. The ' +
        "model is shown schemas with their references written out, which a recursive schema cannot be: write the " +
        'nesting out to a fixed depth, or give the recursive part as {"type": "object"} and check it in the code.',
    );
    const outside = {
      ...tool,
      parameters_schema: { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },
    };
    expect((await expectJson(await sendJson(client, "/api/tools", "POST", outside), 422)).error.message).toBe(
      'Invalid parameters_schema: /properties/a: $ref "https://example.com/a.json" is not a reference within the schema ("#/$defs/Name").',
    );
  });
});
