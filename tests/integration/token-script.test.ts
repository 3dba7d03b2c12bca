// `npm run token` (scripts/token.ts): an API token made without a browser, on the running app's database, works
// against the app's API, for a new identity or for a browser's.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import { seedSignedIn } from "../support/accounts";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, {}, databaseUrl);
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

/** The script as `npm run token -- …` runs it, with the app's database and secret. */
async function token(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const secret =
    process.env.TEST_DATABASE === "postgresql" ? { TOOLSMITH_SECRET: "test-secret-shared-by-the-instances" } : {};
  return promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/token.ts", ...args], {
    env: { ...process.env, ...secret, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const SLUGIFY = {
  name: "slugify",
  description: "Turn a title into a URL slug.",
  parameters_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  code: "function run({ title }) { return title.toLowerCase().replace(/[^a-z0-9]+/g, '-'); }",
};

const bearer = (value: string, init: RequestInit = {}) => ({
  ...init,
  headers: { ...init.headers, authorization: `Bearer ${value}`, "content-type": "application/json" },
});

describe("npm run token", () => {
  // Each run of the script compiles its TypeScript first (tsx): seconds on a busy machine.
  it("prints a token and the new identity it acts as, which the API takes", { timeout: 120_000 }, async () => {
    const created = await token("create", "--name", "ci");
    expect(created.code).toBe(0);
    const printed = /Token: +(tsk_\S+)\nIdentity: +(\S+) \(new\)\nName: +ci\n/.exec(created.stdout);
    expect(printed, created.stdout).not.toBeNull();
    const [, value] = printed!;
    expect(created.stdout).toContain(`curl -H "Authorization: Bearer ${value}"`);

    const script = new Api(app.url);
    const stored = await script.fetch("/api/tools", bearer(value, { method: "POST", body: JSON.stringify(SLUGIFY) }));
    expect(stored.status).toBe(201);
    const listed = await (await script.fetch("/api/tools", bearer(value))).json();
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(["slugify"]);
    // Another identity (a browser) does not see it.
    expect((await (await new Api(app.url).fetch("/api/tools")).json()).tools).toEqual([]);
    expect((await new Api(app.url).fetch("/api/tools", bearer("tsk_not-a-token"))).status).toBe(401);
  });

  it(
    "makes a token for a browser's identity, given as its cookie, lists it and revokes it",
    { timeout: 120_000 },
    async () => {
      const browser = new Api(app.url);
      const { id: conversation } = await browser.createConversation();
      const cookie = await browser.identity();
      const identity = cookie.slice(0, cookie.lastIndexOf("."));

      const created = await token("create", "--name", "laptop", "--identity", cookie, "--json");
      expect(created.code).toBe(0);
      const answer = JSON.parse(created.stdout);
      expect(answer).toMatchObject({ identity, name: "laptop", token: expect.stringMatching(/^tsk_/) });
      const conversations = await (await new Api(app.url).fetch("/api/conversations", bearer(answer.token))).json();
      expect(conversations.conversations.map((listed: { id: string }) => listed.id)).toEqual([conversation]);
      // The browser sees the token among its own, as if it had made it.
      const tokens = await (await browser.fetch("/api/tokens")).json();
      expect(tokens.map((listed: { name: string }) => listed.name)).toEqual(["laptop"]);

      const list = await token("list", "--identity", identity);
      expect(list.stdout).toMatch(new RegExp(`^${answer.id}  laptop  created .*, last used `));
      expect((await token("revoke", "--identity", identity, "--id", answer.id)).stdout).toBe(`Revoked ${answer.id}.\n`);
      expect((await new Api(app.url).fetch("/api/conversations", bearer(answer.token))).status).toBe(401);
    },
  );

  it("says what is wrong with its arguments", { timeout: 120_000 }, async () => {
    const [noName, forged, listWithoutIdentity, notTheirs, unknown] = await Promise.all([
      token("create"),
      token("create", "--name", "x", "--identity", "someone.forged"),
      token("list"),
      token("revoke", "--identity", "6f1c1a4e-0d43-4b8e-9a51-0c6b8f7f2b11", "--id", "nothing"),
      token("mint"),
    ]);
    expect(noName).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^--name: name must not be empty\.\n\nUsage:/),
    });
    expect(forged).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "--identity must be an identity (a UUID) or a toolsmith_id cookie value this server signed",
      ),
    });
    expect(listWithoutIdentity).toMatchObject({ code: 1, stderr: expect.stringMatching(/^list needs --identity\./) });
    expect(notTheirs).toMatchObject({ code: 1, stderr: expect.stringContaining("has no token nothing") });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^Unknown command "mint"/) });
  });

  it(
    "makes and lists an account's tokens by its address, and says when there is none",
    { timeout: 120_000 },
    async () => {
      const { accountId } = await seedSignedIn(databaseUrl, "ada@example.com");
      const made = await token("create", "--name", "laptop", "--email", "Ada@example.com", "--json");
      expect(made.code, made.stderr).toBe(0);
      const created = JSON.parse(made.stdout);
      expect(created.identity).toBe(accountId);
      // The token acts for the account: what it makes, the account owns.
      const response = await fetch(
        `${app.url}/api/conversations`,
        bearer(created.token, { method: "POST", body: "{}" }),
      );
      expect(response.status).toBe(201);
      const listed = await token("list", "--email", "ada@example.com", "--json");
      expect(JSON.parse(listed.stdout)).toMatchObject([{ id: created.id, name: "laptop" }]);
      const [nobody, both] = await Promise.all([
        token("create", "--name", "x", "--email", "nobody@example.com"),
        token("create", "--name", "x", "--email", "ada@example.com", "--identity", accountId),
      ]);
      expect(nobody).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('no account with the address "nobody@example.com"'),
      });
      expect(both).toMatchObject({ code: 1, stderr: expect.stringContaining("not both") });
    },
  );
});
