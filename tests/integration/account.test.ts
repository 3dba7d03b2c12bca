// The account routes (lib/accounts/account.ts): who is signed in, their sessions, signing out, exporting and deleting
// everything; and TOOLSMITH_AUTH=required. Accounts are seeded (tests/support/accounts.ts); each way of signing in
// has its own suite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson, signedInApi } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { queryDatabase, seedSignedIn } from "../support/accounts";
import { freshDatabaseUrl } from "../support/database";

const databaseUrl = freshDatabaseUrl();
let app: AppServer;

beforeAll(async () => {
  app = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "optional" }, databaseUrl);
  await app.start();
});

afterAll(() => app.stop());

/** A browser signed in to the account of `email` (a new session of it). */
const browserOf = (email: string) => signedInApi(databaseUrl, app.url, email);

const TOOL = {
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.toUpperCase(); }",
};

describe("the account", () => {
  it("is shown to its sessions and tokens, and is 401 for an anonymous browser", async () => {
    const { browser, accountId } = await browserOf("ann@example.com");
    expect(await expectJson(await browser.fetch("/api/account"), 200)).toMatchObject({
      id: accountId,
      email: "ann@example.com",
      methods: { passkeys: 0, oidc: 0, email: true },
      admin: false,
    });
    const { token } = await browser.createToken("script");
    const script = await fetch(`${app.url}/api/account`, { headers: { authorization: `Bearer ${token}` } });
    expect((await expectJson(script, 200)).email).toBe("ann@example.com");
    const anonymous = await expectJson(await new Api(app.url).fetch("/api/account"), 401);
    expect(anonymous.error.message).toMatch(/sign in/i);
  });

  it("lists its sessions with the asking one marked, and revokes one at its next request; another's is 404", async () => {
    const laptop = await browserOf("ben@example.com");
    const phone = await browserOf("ben@example.com");
    const stranger = await browserOf("cat@example.com");
    const sessions = await expectJson(await laptop.browser.fetch("/api/account/sessions"), 200);
    expect(sessions.map((s: { id: string; current: boolean }) => [s.id, s.current]).sort()).toEqual(
      [
        [laptop.sessionId, true],
        [phone.sessionId, false],
      ].sort(),
    );
    expect((await phone.browser.fetch("/api/account")).status).toBe(200);
    expect(
      (await stranger.browser.fetch(`/api/account/sessions/${phone.sessionId}`, { method: "DELETE" })).status,
    ).toBe(404);
    expect((await laptop.browser.fetch(`/api/account/sessions/${phone.sessionId}`, { method: "DELETE" })).status).toBe(
      204,
    );
    // Cached a moment ago on this instance, and refused now.
    expect((await phone.browser.fetch("/api/account")).status).toBe(401);
    expect((await laptop.browser.fetch("/api/account")).status).toBe(200);
  });

  it("signs a browser out, or every browser of the account", async () => {
    const one = await browserOf("dan@example.com");
    const two = await browserOf("dan@example.com");
    const three = await browserOf("dan@example.com");
    const oldCookie = one.browser.session;
    expect((await sendJson(one.browser, "/api/auth/signout", "POST", {})).status).toBe(204);
    expect(one.browser.session).toBeUndefined();
    const replay = new Api(app.url);
    replay.session = oldCookie;
    expect((await replay.fetch("/api/account")).status).toBe(401);
    // Signed out, the browser is a new anonymous identity: nothing of the account is there.
    expect((await expectJson(await one.browser.fetch("/api/conversations"), 200)).conversations).toEqual([]);

    expect((await sendJson(two.browser, "/api/auth/signout", "POST", { everywhere: true })).status).toBe(204);
    expect((await three.browser.fetch("/api/account")).status).toBe(401);
    expect(await queryDatabase(databaseUrl, `SELECT "id" FROM "Session" WHERE "accountId" = ?`, two.accountId)).toEqual(
      [],
    );
  });

  it("exports everything, then deletes the account and all it owns once its address is typed", async () => {
    const { browser, accountId } = await browserOf("eva@example.com");
    const conversation = await browser.createConversation();
    await expectJson(await sendJson(browser, `/api/conversations/${conversation.id}/share`, "POST"), 201);
    const tool = await expectJson(await sendJson(browser, "/api/tools", "POST", TOOL), 201);
    await expectJson(await sendJson(browser, `/api/tools/${tool.id}/execute`, "POST", { input: { text: "hi" } }), 200);
    const { token } = await browser.createToken("script");
    const form = new FormData();
    form.append("file", new Blob(["north,10\n"]), "sales.csv");
    await expectJson(
      await browser.fetch(`/api/conversations/${conversation.id}/files`, { method: "POST", body: form }),
      201,
    );

    const exported = await expectJson(await browser.fetch("/api/account/export"), 200);
    // Its files with their bytes.
    expect(exported.conversations[0].files).toEqual([
      expect.objectContaining({ name: "sales.csv", contentBase64: Buffer.from("north,10\n").toString("base64") }),
    ]);
    expect(exported.format).toBe("toolsmith.account.v1");
    expect(exported.conversations.map((c: { conversation: { id: string } }) => c.conversation.id)).toEqual([
      conversation.id,
    ]);
    expect(exported.tools.map((t: { name: string }) => t.name)).toEqual(["shout"]);
    expect(exported.apiTokens.map((t: { name: string }) => t.name)).toEqual(["script"]);

    const wrong = await expectJson(
      await sendJson(browser, "/api/account", "DELETE", { confirm: "eve@example.com" }),
      400,
    );
    expect(wrong.error.message).toContain("eva@example.com");
    expect((await sendJson(browser, "/api/account", "DELETE", { confirm: " EVA@example.com " })).status).toBe(204);

    for (const [table, column] of [
      ["Account", "id"],
      ["Conversation", "ownerId"],
      ["Tool", "ownerId"],
      ["ApiToken", "ownerId"],
      ["Session", "accountId"],
      ["ToolAudit", "ownerId"],
      ["ConversationFile", "ownerId"],
    ])
      expect(await queryDatabase(databaseUrl, `SELECT * FROM "${table}" WHERE "${column}" = ?`, accountId)).toEqual([]);
    expect(
      await queryDatabase(databaseUrl, `SELECT * FROM "ShareLink" WHERE "conversationId" = ?`, conversation.id),
    ).toEqual([]);
    expect(await queryDatabase(databaseUrl, `SELECT * FROM "ToolExecution" WHERE "toolName" = 'shout'`)).toEqual([]);
    expect((await fetch(`${app.url}/api/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await browser.fetch("/api/account")).status).toBe(401);
  });
});

describe("TOOLSMITH_AUTH=required", () => {
  it("sends strangers' pages to sign in, answers the API 401, and lets sessions and tokens through", async () => {
    const requiredDatabase = freshDatabaseUrl();
    const required = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "required" }, requiredDatabase);
    await required.start();
    try {
      const page = await fetch(`${required.url}/tools?x=1`, { redirect: "manual" });
      expect(page.status).toBe(307);
      const signIn = new URL(page.headers.get("location")!, required.url);
      expect(`${signIn.pathname}${signIn.search}`).toBe("/signin?next=%2Ftools%3Fx%3D1");
      expect(page.headers.getSetCookie()).toEqual([]);
      expect((await fetch(`${required.url}/signin`)).status).toBe(200);
      const api = await expectJson(await fetch(`${required.url}/api/conversations`), 401);
      expect(api.error.code).toBe("sign_in_required");
      // A write with no cookie at all is stopped before the route, and told the same.
      const write = await fetch(`${required.url}/api/conversations`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: required.url },
        body: "{}",
      });
      expect((await expectJson(write, 401)).error.code).toBe("sign_in_required");

      const { cookie } = await seedSignedIn(requiredDatabase, "fay@example.com");
      const member = new Api(required.url);
      member.session = cookie;
      expect((await member.fetch("/tools")).status).toBe(200);
      const made = await member.createConversation();
      const { token } = await member.createToken("ci");
      const listed = await fetch(`${required.url}/api/conversations`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect((await expectJson(listed, 200)).conversations.map((c: { id: string }) => c.id)).toContain(made.id);
      // A revoked session is a stranger again, page and API alike.
      await sendJson(member, "/api/auth/signout", "POST", {});
      const stale = new Api(required.url);
      stale.session = cookie;
      expect((await stale.fetch("/api/conversations")).status).toBe(401);
      const stalePage = await stale.fetch("/tools", { redirect: "manual" });
      expect([303, 307]).toContain(stalePage.status);
    } finally {
      await required.stop();
    }
  });
});
