// Passkeys (lib/accounts/passkeys.ts) with a software authenticator that answers as a browser's would: several per
// account, each signing in from any browser, renamed and removed; and the ways to sign in with one that is not yours.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson, signedInApi } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { signedInEmail } from "../support/accounts";
import { freshDatabaseUrl } from "../support/database";
import { SoftAuthenticator } from "../support/webauthn";

const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let authenticator: SoftAuthenticator;

beforeAll(async () => {
  app = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "optional" }, databaseUrl);
  await app.start();
  authenticator = new SoftAuthenticator(app.url);
});
afterAll(() => app.stop());

const signedInBrowser = async (email: string) => (await signedInApi(databaseUrl, app.url, email)).browser;

/** Register a passkey on the browser's account: its credential id. */
async function register(browser: Api, name: string): Promise<string> {
  const options = await expectJson(await sendJson(browser, "/api/auth/passkey/register/options", "POST"), 200);
  const response = authenticator.create(options);
  const passkey = await expectJson(
    await sendJson(browser, "/api/auth/passkey/register", "POST", { response, name }),
    201,
  );
  expect(passkey).toMatchObject({ id: response.id, name });
  return response.id;
}

const signInOptions = async (browser: Api) =>
  expectJson(await sendJson(browser, "/api/auth/passkey/signin/options", "POST"), 200);
const signIn = (browser: Api, response: unknown) => sendJson(browser, "/api/auth/passkey/signin", "POST", { response });

describe("passkeys", () => {
  let laptop: string;
  let phone: string;

  it("registers several on an account, each signs in from a new browser with what it made anonymously", async () => {
    const owner = await signedInBrowser("pam@example.com");
    laptop = await register(owner, "Laptop");
    phone = await register(owner, "Phone");
    const listed = await expectJson(await owner.fetch("/api/account/passkeys"), 200);
    expect(listed.map((passkey: { name: string }) => passkey.name)).toEqual(["Laptop", "Phone"]);

    const elsewhere = new Api(app.url);
    const made = await elsewhere.createConversation();
    const planted = `toolsmith_session=${"B".repeat(43)}`;
    elsewhere.session = planted;
    await expectJson(await signIn(elsewhere, authenticator.get(await signInOptions(elsewhere), laptop)), 200);
    expect(elsewhere.session).not.toBe(planted);
    expect(await signedInEmail(databaseUrl, elsewhere.session)).toBe("pam@example.com");
    const conversations = (await expectJson(await elsewhere.fetch("/api/conversations"), 200)).conversations;
    expect(conversations.map((c: { id: string }) => c.id)).toContain(made.id);

    const third = new Api(app.url);
    await expectJson(await signIn(third, authenticator.get(await signInOptions(third), phone)), 200);
    expect(await signedInEmail(databaseUrl, third.session)).toBe("pam@example.com");
  });

  it("renames and removes one; a removed passkey signs in no more; another account's is 404", async () => {
    const owner = await signedInBrowser("pam@example.com");
    const stranger = await signedInBrowser("sam@example.com");
    expect((await sendJson(stranger, `/api/account/passkeys/${laptop}`, "PATCH", { name: "Mine" })).status).toBe(404);
    expect((await stranger.fetch(`/api/account/passkeys/${laptop}`, { method: "DELETE" })).status).toBe(404);
    const renamed = await expectJson(
      await sendJson(owner, `/api/account/passkeys/${laptop}`, "PATCH", { name: "Work laptop" }),
      200,
    );
    expect(renamed.name).toBe("Work laptop");
    expect((await owner.fetch(`/api/account/passkeys/${phone}`, { method: "DELETE" })).status).toBe(204);
    const browser = new Api(app.url);
    const refused = await expectJson(
      await signIn(browser, authenticator.get(await signInOptions(browser), phone)),
      400,
    );
    expect(refused.error.message).toMatch(/not registered here/);
    expect(browser.session).toBeUndefined();
  });

  it("refuses a forged signature, a replay, another browser's challenge, another origin and a counter gone back", async () => {
    const browser = new Api(app.url);
    // Signed with another key than the registered credential's.
    await expectJson(
      await signIn(browser, authenticator.get(await signInOptions(browser), laptop, { signWith: phone })),
      400,
    );
    // Accepted once, then replayed: the challenge is used up, and a fresh one is not the one it signed.
    const answer = authenticator.get(await signInOptions(browser), laptop);
    await expectJson(await signIn(browser, answer), 200);
    const replayer = new Api(app.url);
    await expectJson(await signIn(replayer, answer), 400);
    await signInOptions(replayer);
    await expectJson(await signIn(replayer, answer), 400);
    // An answer to a challenge this browser was never given (no challenge cookie).
    const other = new Api(app.url);
    const stolen = authenticator.get(await signInOptions(other), laptop);
    await expectJson(await signIn(new Api(app.url), stolen), 400);
    // Made for another site.
    const phished = new Api(app.url);
    await expectJson(
      await signIn(
        phished,
        authenticator.get(await signInOptions(phished), laptop, { origin: "https://evil.example" }),
      ),
      400,
    );
    // A counter that goes back: a cloned authenticator.
    const cloned = new Api(app.url);
    await expectJson(await signIn(cloned, authenticator.get(await signInOptions(cloned), laptop, { counter: 1 })), 400);
    for (const client of [replayer, other, phished, cloned]) expect(client.session).toBeUndefined();
  });

  it("adds passkeys only to a signed-in account, and is not there when accounts are off", async () => {
    const anonymous = new Api(app.url);
    expect((await sendJson(anonymous, "/api/auth/passkey/register/options", "POST")).status).toBe(401);
    expect((await anonymous.fetch("/api/account/passkeys")).status).toBe(401);
    const off = scriptedApp("http://127.0.0.1:9/v1");
    await off.start();
    try {
      expect((await sendJson(new Api(off.url), "/api/auth/passkey/signin/options", "POST")).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
