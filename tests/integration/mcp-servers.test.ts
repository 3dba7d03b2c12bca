// MCP servers a person connects (issue 40): GET/POST/DELETE /api/mcp-servers through the built app, their headers
// sealed in the database (read back from the row), the profiles file's servers beside them, what a run gets
// (serversForRun, in-process on the same database, secret and file), and how signing in, the export and deleting
// an account treat them. Adding a server connects to it (mcp-server-connection.test.ts dials real ones): those here
// are under .internal, which the client refuses before any lookup (neither public nor listed in
// TOOLSMITH_MCP_PRIVATE_HOSTS), so nothing is dialled. This is configuration and storage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { queryDatabase } from "../support/accounts";
import { prepareDatabase } from "../support/database";
import { Mailbox, signInLink } from "../support/mailbox";
import { sharedWithApp } from "../support/mcp-servers";

const CONFIG = `mcp_servers:
  - name: files
    command: npx
    args: [-y, some-filesystem-server, /srv]
    env:
      FILES_TOKEN: operator-env-secret
  - name: tickets
    url: https://tickets.example.com/mcp
    headers:
      Authorization: Bearer operator-header-secret
      X-Team: support
  - name: archive
    url: https://archive.example.com/mcp
profiles:
  - name: everyday
    tools: [calculate]
    mcp_servers: [files, tickets]
  - name: locked
    tools: [calculate]
    mcp_servers: [archive]
    personal_mcp_servers: false
default_profile: everyday
`;
const SECRET = "mcp-servers-test-secret";
const { databaseUrl, configFile } = sharedWithApp(CONFIG, SECRET);

const mailbox = new Mailbox();
let app: AppServer;
let alice: Api;
let bob: Api;

beforeAll(async () => {
  await mailbox.start();
  await prepareDatabase(databaseUrl);
  app = scriptedApp(
    "http://127.0.0.1:9/v1",
    { TOOLSMITH_CONFIG: configFile, TOOLSMITH_SECRET: SECRET, TOOLSMITH_AUTH: "optional", SMTP_URL: mailbox.url },
    databaseUrl,
  );
  await app.start({ migrated: true });
  alice = new Api(app.url);
  bob = new Api(app.url);
  await Promise.all([alice.identity(), bob.identity()]);
});
afterAll(async () => {
  await app?.stop();
  await mailbox.stop();
  await (await import("@/lib/db/driver/client")).db.$disconnect();
});

const add = (client: Api, body: unknown) => sendJson(client, "/api/mcp-servers", "POST", body);
const list = async (client: Api) => expectJson(await client.fetch("/api/mcp-servers"), 200);
const problem = async (client: Api, body: unknown, status: number) =>
  (await expectJson(await add(client, body), status)).error.message as string;
const rowsOf = (name: string) =>
  queryDatabase<Record<string, unknown>>(databaseUrl, `SELECT * FROM "McpServer" WHERE "name" = ?`, name);

describe("a person's MCP servers", () => {
  it("are stored with their headers sealed, answered by header name only, and listed after the file's", async () => {
    const created = await expectJson(
      await add(alice, {
        name: "notes",
        url: "https://notes.example.internal/mcp",
        bearerToken: "alice-bearer-secret",
        headers: { "X-Api-Key": "alice-key-secret" },
      }),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: "notes",
      source: "personal",
      transport: "http",
      url: "https://notes.example.internal/mcp",
      headerNames: ["X-Api-Key"],
      bearer: true,
      createdAt: expect.any(String),
      status: { state: "failed", message: expect.stringContaining('MCP server "notes" may not be reached: ') },
    });

    const [row] = await rowsOf("notes");
    const stored = JSON.stringify(row);
    expect(stored).not.toContain("alice-bearer-secret");
    expect(stored).not.toContain("alice-key-secret");
    expect(row.headers).toMatch(/^v1\.[\w-]+$/);

    const servers = await list(alice);
    // The default profile's file servers first (read-only, no id), their secrets as names at most.
    expect(servers).toEqual([
      {
        id: null,
        name: "files",
        source: "file",
        transport: "stdio",
        url: null,
        headerNames: [],
        bearer: false,
        createdAt: null,
        // Not connected: this listing dials nothing, and no run has used it.
        status: { state: "idle" },
      },
      {
        id: null,
        name: "tickets",
        source: "file",
        transport: "http",
        url: "https://tickets.example.com/mcp",
        headerNames: ["X-Team"],
        bearer: true,
        createdAt: null,
        status: { state: "idle" },
      },
      // As adding it left it.
      created,
    ]);
    const text = JSON.stringify(servers);
    for (const secret of ["operator-env-secret", "operator-header-secret", "support", "npx", "alice-"])
      expect(text).not.toContain(secret);
    // Nobody else sees them.
    expect(await list(bob)).toEqual(servers.slice(0, 2));
  });

  it("go to a run decrypted, with the file's servers its profile names, unless it keeps a person's out", async () => {
    const { serversForRun } = await import("@/lib/mcp-servers/servers");
    const { findProfile } = await import("@/lib/settings/profiles");
    const aliceId = (await alice.identity()).split(".")[0];
    expect(await serversForRun(aliceId, findProfile("everyday")!)).toEqual([
      {
        name: "files",
        trusted: true,
        command: "npx",
        args: ["-y", "some-filesystem-server", "/srv"],
        env: { FILES_TOKEN: "operator-env-secret" },
      },
      {
        name: "tickets",
        trusted: true,
        url: "https://tickets.example.com/mcp",
        headers: { Authorization: "Bearer operator-header-secret", "X-Team": "support" },
      },
      {
        name: "notes",
        trusted: false,
        url: "https://notes.example.internal/mcp",
        headers: { "X-Api-Key": "alice-key-secret", Authorization: "Bearer alice-bearer-secret" },
      },
    ]);
    expect(await serversForRun(aliceId, findProfile("locked")!)).toEqual([
      { name: "archive", trusted: true, url: "https://archive.example.com/mcp" },
    ]);
  });

  it("leave a server out of a run when its sealed headers were moved to another row, and never fail the run", async () => {
    const { serversForRun } = await import("@/lib/mcp-servers/servers");
    const { findProfile } = await import("@/lib/settings/profiles");
    const bobId = (await bob.identity()).split(".")[0];
    await expectJson(await add(bob, { name: "plain", url: "http://127.0.0.1:9/mcp", bearerToken: "bob-token" }), 201);
    const [stolen] = await rowsOf("notes");
    // Someone with the database copies Alice's sealed headers into Bob's row: they do not open there.
    await queryDatabase(databaseUrl, `UPDATE "McpServer" SET "headers" = ? WHERE "name" = 'plain'`, stolen.headers);
    const specs = await serversForRun(bobId, findProfile("everyday")!);
    expect(specs.map((spec) => spec.name)).toEqual(["files", "tickets"]);
    expect(JSON.stringify(specs)).not.toContain("alice");
    // Refresh cannot connect to it either, and says what to do.
    const refresh = await sendJson(bob, `/api/mcp-servers/${(await rowsOf("plain"))[0].id}/refresh`, "POST");
    expect((await expectJson(refresh, 409)).error.message).toBe(
      'The headers of the MCP server "plain" no longer open (they were sealed under another secret, or altered); ' +
        "remove it and add it again.",
    );
    expect((await sendJson(bob, `/api/mcp-servers/${(await rowsOf("plain"))[0].id}`, "DELETE")).status).toBe(204);
  });

  it("refuse a stdio server from the API with what to do instead", async () => {
    const refusal =
      "stdio servers (command, args, env) are configured by the server's operator in the profiles file " +
      "(mcp_servers:); here, connect a server by its url";
    expect(await problem(alice, { name: "shell", command: "bash", args: ["-c", "id"] }, 400)).toBe(
      `command: ${refusal}`,
    );
    expect(await problem(alice, { name: "shell", url: "https://x.example.internal/mcp", env: { A: "b" } }, 400)).toBe(
      `env: ${refusal}`,
    );
    expect(await problem(alice, { name: "shell", url: "file:///bin/sh" }, 400)).toMatch(
      /^url: the URL must be http:\/\/ or https:\/\/ \(got file:\); stdio servers are configured by the operator/,
    );
  });

  it.each([
    [
      { name: "Notes Two", url: "https://a.example.com" },
      /^name: a server's name is lower-case letters, digits, _ and -/,
    ],
    [{ name: "a__b", url: "https://a.example.com" }, /^name: a server's name may not contain "__"/],
    [{ name: "x".repeat(33), url: "https://a.example.com" }, /^name: a server's name is at most 32 characters/],
    [{ name: "a", url: "not a url" }, /^url: the URL must be an absolute http:\/\/ or https:\/\/ address/],
    [{ name: "a", url: "https://me:pw@a.example.com" }, /^url: the URL may not carry a user or password/],
    [
      { name: "a", url: `https://a.example.com/${"p".repeat(2048)}` },
      /^url: a server's URL is at most 2048 characters/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { Host: "internal" } },
      /^headers\.Host: the header "Host" is set by the MCP client itself/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { "Mcp-Session-Id": "forged" } },
      /^headers\.Mcp-Session-Id: the header "Mcp-Session-Id" is set by the MCP client itself/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { "X Key": "v" } },
      /^headers\.X Key: "X Key" is not a header's name/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { "X-Key": "v\r\nHost: evil" } },
      /^headers\.X-Key: a header's value may not contain a line break/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { "X-Key": "v".repeat(4097) } },
      /^headers\.X-Key: a header's value is at most 4096 characters/,
    ],
    [
      {
        name: "a",
        url: "https://a.example.com",
        headers: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`X-H${i}`, "v"])),
      },
      /^headers: at most 16 headers per server/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { "x-key": "1", "X-Key": "2" } },
      /^headers: a header is named twice/,
    ],
    [
      { name: "a", url: "https://a.example.com", headers: { authorization: "Bearer x" }, bearerToken: "y" },
      /^bearerToken: give the token as bearerToken or as an Authorization header, not both/,
    ],
    [{ name: "a", url: "https://a.example.com", bearerToken: "" }, /^bearerToken: bearerToken must not be empty/],
    [{ url: "https://a.example.com" }, /^name: /],
  ])("refuse a bad server with a sentence that says what to change (%#)", async (body, message) => {
    expect(await problem(alice, body, 400)).toMatch(message);
    expect(await rowsOf("a")).toEqual([]);
  });

  it("refuse a name the person or the profiles file has, and more than 20 servers", async () => {
    expect(await problem(alice, { name: "notes", url: "https://other.example.internal/mcp" }, 409)).toBe(
      'You already have an MCP server named "notes"; remove it first, or choose another name.',
    );
    expect(await problem(alice, { name: "tickets", url: "https://other.example.internal/mcp" }, 409)).toBe(
      '"tickets" is the name of a server this instance\'s profiles file configures; choose another.',
    );
    const carol = new Api(app.url);
    for (let i = 1; i <= 20; i++)
      await expectJson(await add(carol, { name: `s${i}`, url: `https://s${i}.example.internal/mcp` }), 201);
    expect(await problem(carol, { name: "s21", url: "https://s21.example.internal/mcp" }, 409)).toBe(
      "You have 20 MCP servers, the most one person may connect; remove one first.",
    );
    expect((await list(carol)).filter((server: { source: string }) => server.source === "personal")).toHaveLength(20);
  });

  it("past the limit even when added at once: of many concurrent additions to 19, exactly one is stored", async () => {
    const dave = new Api(app.url);
    for (let i = 1; i <= 19; i++)
      await expectJson(await add(dave, { name: `s${i}`, url: `https://s${i}.example.internal/mcp` }), 201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => add(dave, { name: `race${i}`, url: "https://race.example.internal/mcp" })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    for (const answer of answers.filter((answer) => answer.status === 409))
      expect((await answer.json()).error).toEqual({
        code: "limit_reached",
        message: "You have 20 MCP servers, the most one person may connect; remove one first.",
      });
    const daveId = (await dave.identity()).split(".")[0];
    const [{ count }] = await queryDatabase<{ count: unknown }>(
      databaseUrl,
      `SELECT COUNT(*) AS "count" FROM "McpServer" WHERE "ownerId" = ?`,
      daveId,
    );
    expect(Number(count)).toBe(20);
    // In this process too, where nothing spaces the additions out (on SQLite, the app's requests come in one by one).
    const { addMcpServer } = await import("@/lib/mcp-servers/servers");
    const erin = `erin-${Date.now()}`;
    for (let i = 1; i <= 19; i++)
      await addMcpServer(erin, { name: `s${i}`, url: `https://s${i}.example.internal/mcp` });
    const settled = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        addMcpServer(erin, { name: `race${i}`, url: "https://r.example.internal/mcp" }),
      ),
    );
    expect(settled.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const counted = await queryDatabase<{ count: unknown }>(
      databaseUrl,
      `SELECT COUNT(*) AS "count" FROM "McpServer" WHERE "ownerId" = ?`,
      erin,
    );
    expect(Number(counted[0].count)).toBe(20);
  });

  it("are removed only by their owner: another identity's id and the file's are 404", async () => {
    const [notes] = await rowsOf("notes");
    for (const target of [String(notes.id), "tickets", "file:tickets", "no-such-id"])
      expect((await sendJson(bob, `/api/mcp-servers/${encodeURIComponent(target)}`, "DELETE")).status, target).toBe(
        404,
      );
    expect(await rowsOf("notes")).toHaveLength(1);
    const temporary = await expectJson(
      await add(alice, { name: "temporary", url: "https://t.example.internal/mcp" }),
      201,
    );
    expect((await sendJson(alice, `/api/mcp-servers/${temporary.id}`, "DELETE")).status).toBe(204);
    expect((await sendJson(alice, `/api/mcp-servers/${temporary.id}`, "DELETE")).status).toBe(404);
    expect(await rowsOf("temporary")).toEqual([]);
  });
});

describe("accounts and a person's MCP servers", () => {
  async function signIn(browser: Api, email: string): Promise<void> {
    const already = mailbox.to(email).length;
    expect((await sendJson(browser, "/api/auth/email", "POST", { email })).status).toBe(202);
    const token = signInLink(await mailbox.next(email, already)).searchParams.get("token");
    await expectJson(await sendJson(browser, "/api/auth/email/verify", "POST", { token }), 200);
  }
  const personal = async (client: Api) =>
    (await list(client))
      .filter((server: { source: string }) => server.source === "personal")
      .map((server: { name: string; url: string; headerNames: string[] }) => [
        server.name,
        server.url,
        server.headerNames,
      ]);

  it("moves them on signing in (the account's kept on a clash), exports them without secrets, deletes them with it", async () => {
    const first = new Api(app.url);
    await expectJson(
      await add(first, { name: "wiki", url: "https://wiki-a.example.internal/mcp", bearerToken: "wiki-a-secret" }),
      201,
    );
    await signIn(first, "mia@example.com");
    const second = new Api(app.url);
    await expectJson(await add(second, { name: "wiki", url: "https://wiki-b.example.internal/mcp" }), 201);
    await expectJson(
      await add(second, {
        name: "crm",
        url: "https://crm.example.internal/mcp",
        headers: { "X-Crm-Key": "crm-secret" },
      }),
      201,
    );
    await signIn(second, "mia@example.com");
    expect(await personal(second)).toEqual([
      ["crm", "https://crm.example.internal/mcp", ["X-Crm-Key"]],
      ["wiki", "https://wiki-a.example.internal/mcp", []],
    ]);
    // Moved, they still open: the sealed headers are bound to the row, not to its owner.
    const { serversForRun } = await import("@/lib/mcp-servers/servers");
    const { findProfile } = await import("@/lib/settings/profiles");
    const [{ id: accountId }] = await queryDatabase<{ id: string }>(
      databaseUrl,
      `SELECT "id" FROM "Account" WHERE "email" = 'mia@example.com'`,
    );
    const specs = await serversForRun(accountId, findProfile("everyday")!);
    expect(specs.slice(2)).toEqual([
      { name: "crm", trusted: false, url: "https://crm.example.internal/mcp", headers: { "X-Crm-Key": "crm-secret" } },
      {
        name: "wiki",
        trusted: false,
        url: "https://wiki-a.example.internal/mcp",
        headers: { Authorization: "Bearer wiki-a-secret" },
      },
    ]);

    const exported = await expectJson(await second.fetch("/api/account/export"), 200);
    expect(exported.mcpServers).toEqual([
      {
        id: expect.any(String),
        name: "crm",
        url: "https://crm.example.internal/mcp",
        headerNames: ["X-Crm-Key"],
        bearer: false,
        createdAt: expect.any(String),
      },
      {
        id: expect.any(String),
        name: "wiki",
        url: "https://wiki-a.example.internal/mcp",
        headerNames: [],
        bearer: true,
        createdAt: expect.any(String),
      },
    ]);
    const text = JSON.stringify(exported);
    expect(text).not.toContain("crm-secret");
    expect(text).not.toContain("wiki-a-secret");
    expect(text).not.toContain("v1.");

    expect((await sendJson(second, "/api/account", "DELETE", { confirm: "mia@example.com" })).status).toBe(204);
    expect(await queryDatabase(databaseUrl, `SELECT * FROM "McpServer" WHERE "ownerId" = ?`, accountId)).toEqual([]);
  });
});
