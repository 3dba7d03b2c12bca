// MCP servers an admin connects for everyone (issue 40), through the built app on both providers: the admin's
// routes (404 to anyone else), their headers sealed and never answered, offered to every person's runs under the
// profiles that take servers connected through the API, clashes of names, removal; and a profile's rate limits of
// MCP tools (tool_config's server__tool and server__*). The MCP server is server-everything over loopback HTTP,
// allowed by TOOLSMITH_MCP_PRIVATE_HOSTS; the model is scripted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType, sendJson, signedInApi } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { queryDatabase } from "../support/accounts";
import { prepareDatabase } from "../support/database";
import { sharedWithApp, startEverythingHttp } from "../support/mcp-servers";
import { ModelServer, type ScriptedCall } from "../support/model-server";
import type { SseMessage } from "../support/sse";

const CONFIG = `mcp_servers:
  - name: tickets
    url: https://tickets.example.com/mcp
profiles:
  - name: connected
    tools: [calculate]
    approve_mcp_tools: never
    tool_config:
      everything__*: { rate_limit: { calls: 2, per_seconds: 3600 } }
      everything__get-sum: { rate_limit: { calls: 1, per_seconds: 3600 } }
  - name: closed
    tools: [calculate]
    personal_mcp_servers: false
default_profile: connected
`;
const SECRET = "mcp-admin-test-secret";
const BEARER = "everyone-bearer-secret";
const KEY = "everyone-key-secret";
const { databaseUrl, configFile } = sharedWithApp(CONFIG, SECRET);

const model = new ModelServer();
let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
let app: AppServer;
let admin: Api;
let member: Api;
let memberId: string;
/** Every body the tests read, to look for a secret in any of them at the end. */
const answered: string[] = [];

beforeAll(async () => {
  await model.start();
  everything = await startEverythingHttp();
  await prepareDatabase(databaseUrl);
  app = scriptedApp(
    model.url,
    {
      TOOLSMITH_CONFIG: configFile,
      TOOLSMITH_SECRET: SECRET,
      TOOLSMITH_AUTH: "optional",
      TOOLSMITH_ADMIN_EMAILS: "boss@example.com",
      TOOLSMITH_MCP_PRIVATE_HOSTS: "127.0.0.1",
    },
    databaseUrl,
  );
  await app.start({ migrated: true });
  admin = (await signedInApi(databaseUrl, app.url, "boss@example.com")).browser;
  const signedIn = await signedInApi(databaseUrl, app.url, "member@example.com");
  member = signedIn.browser;
  memberId = signedIn.accountId;
});
afterAll(async () => {
  await app?.stop();
  await everything?.stop();
  await model.stop();
  await (await import("@/lib/db/driver/client")).db.$disconnect();
});

async function read(response: Response, status: number) {
  const body = await expectJson(response, status);
  answered.push(JSON.stringify(body));
  return body;
}
const addForEveryone = (who: Api, body: unknown) => sendJson(who, "/api/admin/mcp-servers", "POST", body);
const listOf = async (who: Api) => read(await who.fetch("/api/mcp-servers"), 200);
const names = (servers: { name: string; source: string }[]) =>
  servers.map((server) => `${server.source}:${server.name}`);
/** The run of `prompt` was offered no tool of everything's, and its call of echo found none. */
function expectNotOffered(prompt: string, result: SseMessage["data"]) {
  expect(model.toolsOffered(prompt).filter((name) => name.startsWith("everything__"))).toEqual([]);
  expect(result).toMatchObject({ ok: false, error: expect.stringContaining('no tool named "everything__echo"') });
}

/** A run of `who` under `profile` whose model makes these calls, one a step, then answers: its tool results. */
async function runCalling(who: Api, profile: string, prompt: string, calls: ScriptedCall[]) {
  const { id } = await who.createConversation(profile);
  model.script(prompt, [...calls.map((call) => ({ toolCalls: [call] })), { text: "Done." }]);
  return ofType(await who.run(id, prompt), "tool_result");
}

describe("MCP servers an admin connects for everyone", () => {
  let everythingId: string;

  it("are the admin's to add: stored without an owner, headers sealed, answered by header name only", async () => {
    const created = await read(
      await addForEveryone(admin, {
        name: "everything",
        url: everything.url,
        bearerToken: BEARER,
        headers: { "X-Team-Key": KEY },
      }),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: "everything",
      source: "everyone",
      transport: "http",
      url: everything.url,
      headerNames: ["X-Team-Key"],
      bearer: true,
      createdAt: expect.any(String),
      // Connected to as it is added: its tools are listed at once.
      status: { state: "connected" },
      tools: expect.arrayContaining([expect.objectContaining({ name: "echo" })]),
    });
    everythingId = created.id;
    const [row] = await queryDatabase<Record<string, unknown>>(
      databaseUrl,
      `SELECT * FROM "McpServer" WHERE "id" = ?`,
      everythingId,
    );
    expect(row.ownerId).toBeNull();
    expect(row.headers).toMatch(/^v1\.[\w-]+$/);
    expect(JSON.stringify(row)).not.toMatch(/everyone-(bearer|key)-secret/);
    expect(await read(await admin.fetch("/api/admin/mcp-servers"), 200)).toEqual([created]);
  });

  it("are refreshed by the admin: connected again, its tools listed again; 404 for anyone else", async () => {
    const refreshed = await read(await sendJson(admin, `/api/admin/mcp-servers/${everythingId}/refresh`, "POST"), 200);
    expect(refreshed).toMatchObject({ id: everythingId, name: "everything", status: { state: "connected" } });
    expect(refreshed.tools.map((tool: { name: string }) => tool.name)).toEqual(
      expect.arrayContaining(["echo", "get-sum"]),
    );
    for (const who of [member, new Api(app.url)]) {
      expect((await sendJson(who, `/api/admin/mcp-servers/${everythingId}/refresh`, "POST")).status).toBe(404);
      // Nor is it theirs to refresh as their own.
      expect((await sendJson(who, `/api/mcp-servers/${everythingId}/refresh`, "POST")).status).toBe(404);
    }
    expect((await sendJson(admin, "/api/admin/mcp-servers/no-such-id/refresh", "POST")).status).toBe(404);
  });

  it("are not there for anyone else: a member's and an anonymous identity's every admin route is 404", async () => {
    const anonymous = new Api(app.url);
    await anonymous.identity();
    const body = { name: "sneaky", url: "https://sneaky.example.com/mcp" };
    for (const who of [member, anonymous]) {
      expect((await who.fetch("/api/admin/mcp-servers")).status).toBe(404);
      expect((await addForEveryone(who, body)).status).toBe(404);
      expect((await sendJson(who, `/api/admin/mcp-servers/${everythingId}`, "DELETE")).status).toBe(404);
      // Nor is it theirs to remove as their own.
      expect((await sendJson(who, `/api/mcp-servers/${everythingId}`, "DELETE")).status).toBe(404);
    }
    expect(await queryDatabase(databaseUrl, `SELECT "id" FROM "McpServer" WHERE "name" = 'sneaky'`)).toEqual([]);
    expect(await queryDatabase(databaseUrl, `SELECT "id" FROM "McpServer" WHERE "id" = ?`, everythingId)).toHaveLength(
      1,
    );
  });

  it("show in every person's list read-only, without an id or a secret, and go to their runs with headers opened", async () => {
    const anonymous = new Api(app.url);
    for (const who of [member, anonymous]) {
      const [server] = (await listOf(who)).filter((entry: { source: string }) => entry.source === "everyone");
      expect(server).toMatchObject({ id: null, name: "everything", source: "everyone", bearer: true });
    }
    const { serversForRun } = await import("@/lib/mcp-servers/servers");
    const { findProfile } = await import("@/lib/settings/profiles");
    expect(await serversForRun(memberId, findProfile("connected")!)).toEqual([
      {
        name: "everything",
        // Reached as a person's server is: public addresses, or TOOLSMITH_MCP_PRIVATE_HOSTS.
        trusted: false,
        url: everything.url,
        headers: { "X-Team-Key": KEY, Authorization: `Bearer ${BEARER}` },
      },
    ]);
    expect(await serversForRun(memberId, findProfile("closed")!)).toEqual([]);
  });

  it("offer their tools in a person's run, called through the one path, and not under a profile that keeps them out", async () => {
    const prompt = "Echo the words 'for everyone' back to me.";
    const [result] = await runCalling(member, "connected", prompt, [
      { name: "everything__echo", args: { message: "for everyone" } },
    ]);
    expect(model.toolsOffered(prompt)).toContain("everything__echo");
    expect(result).toMatchObject({ name: "everything__echo", ok: true, server: "everything" });
    expect(String(result.output)).toContain("for everyone");
    const audit = await read(await member.fetch("/api/audit"), 200);
    expect(audit.entries[0]).toMatchObject({ tool: "everything__echo", decision: "allowed", outcome: "succeeded" });

    const closedPrompt = "Echo 'closed' back to me.";
    const [refused] = await runCalling(member, "closed", closedPrompt, [
      { name: "everything__echo", args: { message: "closed" } },
    ]);
    expectNotOffered(closedPrompt, refused);
  });

  it("refuse a name taken with 409 and a sentence; a person's older server of a name the admin takes stays theirs", async () => {
    const refused = async (response: Response) => (await read(response, 409)).error.message as string;
    expect(await refused(await addForEveryone(admin, { name: "tickets", url: "https://t.example.com/mcp" }))).toBe(
      '"tickets" is the name of a server this instance\'s profiles file configures; choose another.',
    );
    expect(await refused(await addForEveryone(admin, { name: "everything", url: "https://e.example.com/mcp" }))).toBe(
      'There is already an MCP server for everyone named "everything"; remove it first, or choose another name.',
    );
    expect(
      await refused(await sendJson(member, "/api/mcp-servers", "POST", { name: "everything", url: everything.url })),
    ).toBe(
      '"everything" is the name of an MCP server an admin connected for everyone, which you can use already; choose another.',
    );

    // The member had "wiki" first; the admin's later "wiki" is everyone else's. Adding a server connects to it: a
    // host under .internal is refused before any lookup (neither public nor listed), so nothing is dialled.
    await read(
      await sendJson(member, "/api/mcp-servers", "POST", { name: "wiki", url: "https://mine.example.internal/mcp" }),
      201,
    );
    const wiki = await read(
      await addForEveryone(admin, { name: "wiki", url: "https://wiki.example.internal/mcp" }),
      201,
    );
    const own = await listOf(member);
    expect(names(own)).toEqual(["everyone:everything", "personal:wiki"]);
    expect(own.find((server: { name: string }) => server.name === "wiki").url).toBe(
      "https://mine.example.internal/mcp",
    );
    expect(names(await listOf(new Api(app.url)))).toEqual(["everyone:everything", "everyone:wiki"]);
    const { serversForRun } = await import("@/lib/mcp-servers/servers");
    const { findProfile } = await import("@/lib/settings/profiles");
    const specs = await serversForRun(memberId, findProfile("connected")!);
    expect(specs.map((spec) => [spec.name, "url" in spec && spec.url])).toEqual([
      ["everything", everything.url],
      ["wiki", "https://mine.example.internal/mcp"],
    ]);
    expect((await sendJson(admin, `/api/admin/mcp-servers/${wiki.id}`, "DELETE")).status).toBe(204);
  });

  it("are reached only where a person's may be: a private address TOOLSMITH_MCP_PRIVATE_HOSTS does not list is refused", async () => {
    // A literal address: the guard decides on it, and nothing is dialled.
    const intranet = await read(
      await addForEveryone(admin, { name: "intranet", url: "http://10.9.9.9/mcp", bearerToken: BEARER }),
      201,
    );
    const [search] = await runCalling(member, "connected", "Find me the intranet's tools.", [
      { name: "search_tools", args: { query: "intranet tools" } },
    ]);
    expect((search.output as { unavailable_servers: string[] }).unavailable_servers.join(" ")).toMatch(
      /MCP server "intranet" may not be reached: 10\.9\.9\.9 is not a public address/,
    );
    expect((await sendJson(admin, `/api/admin/mcp-servers/${intranet.id}`, "DELETE")).status).toBe(204);
  });

  it("past the limit, 409: of many added at once with 19 there, exactly one more is stored", async () => {
    const existing = (await read(await admin.fetch("/api/admin/mcp-servers"), 200)).length;
    for (let i = existing; i < 19; i++)
      await read(await addForEveryone(admin, { name: `filler${i}`, url: `https://f${i}.example.internal/mcp` }), 201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        addForEveryone(admin, { name: `race${i}`, url: "https://r.example.internal/mcp" }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    const refusal = await answers.find((answer) => answer.status === 409)!.json();
    expect(refusal.error).toEqual({
      code: "limit_reached",
      message: "There are 20 MCP servers for everyone, the most there may be; remove one first.",
    });
    const [{ count }] = await queryDatabase<{ count: unknown }>(
      databaseUrl,
      `SELECT COUNT(*) AS "count" FROM "McpServer" WHERE "ownerId" IS NULL`,
    );
    expect(Number(count)).toBe(20);
    await queryDatabase(databaseUrl, `DELETE FROM "McpServer" WHERE "ownerId" IS NULL AND "name" <> 'everything'`);
  });

  it("count an MCP tool's calls against its own rate limit, else its server's, and the model reads the refusal", async () => {
    const caller = (await signedInApi(databaseUrl, app.url, "caller@example.com")).browser;
    const prompt = "Echo three times, then add two numbers twice.";
    const results = await runCalling(caller, "connected", prompt, [
      { name: "everything__echo", args: { message: "one" } },
      { name: "everything__echo", args: { message: "two" } },
      { name: "everything__echo", args: { message: "three" } },
      { name: "everything__get-sum", args: { a: 1, b: 2 } },
      { name: "everything__get-sum", args: { a: 3, b: 4 } },
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, true, false, true, false]);
    // The server's bucket (everything__*) took two echoes; get-sum has its own, of one.
    expect(results[2].error).toMatch(
      /^everything__echo is rate-limited in the "connected" profile \(counted with every tool of its server, as everything__\*\); try again in \d+ s\.$/,
    );
    expect(results[4].error).toMatch(
      /^everything__get-sum is rate-limited in the "connected" profile; try again in \d+ s\.$/,
    );
    // The model read each refusal as the call's result.
    const lastRequest = model.requestsFor(prompt).at(-1)!;
    const toolMessages = lastRequest.messages
      .filter((message) => message.role === "tool")
      .map((m) => String(m.content));
    expect(toolMessages[2]).toContain("everything__echo is rate-limited");
    expect(toolMessages[4]).toContain("everything__get-sum is rate-limited");
    const audit = await read(await caller.fetch("/api/audit"), 200);
    expect(
      audit.entries.map((entry: { tool: string; decision: string }) => `${entry.tool} ${entry.decision}`).reverse(),
    ).toEqual([
      "everything__echo allowed",
      "everything__echo allowed",
      "everything__echo rate_limited",
      "everything__get-sum allowed",
      "everything__get-sum rate_limited",
    ]);
  });

  it("stop being offered once the admin removes them, from the next run on", async () => {
    expect((await sendJson(admin, `/api/admin/mcp-servers/${everythingId}`, "DELETE")).status).toBe(204);
    expect((await sendJson(admin, `/api/admin/mcp-servers/${everythingId}`, "DELETE")).status).toBe(404);
    expect(await read(await admin.fetch("/api/admin/mcp-servers"), 200)).toEqual([]);
    expect(names(await listOf(member))).toEqual(["personal:wiki"]);
    const prompt = "Echo 'gone' back to me.";
    const [result] = await runCalling(member, "connected", prompt, [
      { name: "everything__echo", args: { message: "gone" } },
    ]);
    expectNotOffered(prompt, result);
  });

  it("never answer a secret, and stay out of a person's export", async () => {
    const exported = await read(await member.fetch("/api/account/export"), 200);
    expect(exported.mcpServers.map((server: { name: string }) => server.name)).toEqual(["wiki"]);
    for (const text of answered) expect(text).not.toMatch(/everyone-(bearer|key)-secret|v1\./);
  });
});
