// Single sign-on (lib/accounts/oidc.ts) against a real OpenID provider on loopback (oidc-provider): the flow, the
// account a subject or a verified email maps to, and each way an attacker could try to finish someone's sign-in.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson } from "../support/api";
import { freePort, scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { queryDatabase, seedSignedIn, signedInEmail } from "../support/accounts";
import { CLIENT, OTHER_CLIENT, OidcProvider, signInAtProvider } from "../support/oidc-provider";

const provider = new OidcProvider();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let callback: string;

beforeAll(async () => {
  const port = await freePort();
  callback = `http://127.0.0.1:${port}/api/auth/callback/oidc`;
  await provider.start(callback);
  provider.people.set("ada", { email: "ada@example.com", email_verified: true, name: "Ada" });
  provider.people.set("bob", { email: "Bob@example.com", email_verified: true, name: "Bob" });
  provider.people.set("eve", { email: "bob@example.com", email_verified: false, name: "Eve" });
  app = scriptedApp(
    "http://127.0.0.1:9/v1",
    {
      TOOLSMITH_AUTH: "optional",
      TOOLSMITH_OIDC_ISSUER: provider.issuer,
      TOOLSMITH_OIDC_CLIENT_ID: CLIENT.id,
      TOOLSMITH_OIDC_CLIENT_SECRET: CLIENT.secret,
      TOOLSMITH_OIDC_NAME: "Test IdP",
    },
    databaseUrl,
  );
  await app.start({ port });
});

afterAll(async () => {
  await app.stop();
  await provider.stop();
});

const query = <Row>(sql: string, ...params: unknown[]) => queryDatabase<Row>(databaseUrl, sql, ...params);
const signedInAs = (client: Api) => signedInEmail(databaseUrl, client.session);

/** Start single sign-on in `browser`: the provider's authorization URL it is sent to. */
async function begin(browser: Api, next = "/"): Promise<string> {
  const response = await browser.fetch(`/api/auth/signin/oidc?next=${encodeURIComponent(next)}`, {
    redirect: "manual",
  });
  expect(response.status).toBe(303);
  return response.headers.get("location")!;
}

/** The browser arrives back at the callback: where the app sends it next (a path and query). */
async function arrive(browser: Api, redirect: URL): Promise<string> {
  const response = await browser.fetch(`${redirect.pathname}${redirect.search}`, { redirect: "manual" });
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location")!);
  return `${location.pathname}${location.search}`;
}

const signInAs = async (browser: Api, login: string, next = "/") =>
  arrive(browser, await signInAtProvider(await begin(browser, next), login));

describe("single sign-on", () => {
  it("signs in with the provider's verified email, keeps the anonymous browser's things, and goes on to `next`", async () => {
    const browser = new Api(app.url);
    const made = await browser.createConversation();
    const authorization = new URL(await begin(browser, "/tools"));
    expect(authorization.origin).toBe(provider.issuer);
    expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorization.searchParams.get("redirect_uri")).toBe(callback);
    for (const name of ["state", "nonce", "code_challenge"]) expect(authorization.searchParams.get(name)).toBeTruthy();

    expect(await arrive(browser, await signInAtProvider(authorization.href, "ada"))).toBe("/tools");
    expect(await signedInAs(browser)).toBe("ada@example.com");
    const listed = await expectJson(await browser.fetch("/api/conversations"), 200);
    expect(listed.conversations.map((c: { id: string }) => c.id)).toContain(made.id);

    // The same subject from another browser is the same account, with what the first made.
    const laptop = new Api(app.url);
    expect(await signInAs(laptop, "ada")).toBe("/");
    expect(await signedInAs(laptop)).toBe("ada@example.com");
    const there = await expectJson(await laptop.fetch("/api/conversations"), 200);
    expect(there.conversations.map((c: { id: string }) => c.id)).toContain(made.id);
  });

  it("is the account an email link made for the same address (one person, one account)", async () => {
    const { accountId } = await seedSignedIn(databaseUrl, "bob@example.com");
    const browser = new Api(app.url);
    await signInAs(browser, "bob");
    const [session] = await query<{ accountId: string }>(
      `SELECT "accountId" FROM "Session" WHERE "id" = ?`,
      createHash("sha256").update(browser.session!.split("=")[1]).digest("hex"),
    );
    expect(session.accountId).toBe(accountId);
  });

  it("refuses an email the provider did not verify, and never opens the account that has it", async () => {
    const before = await query(`SELECT "id" FROM "Account"`);
    const browser = new Api(app.url);
    expect(await signInAs(browser, "eve")).toBe("/signin?error=oidc_no_verified_email");
    expect(browser.session).toBeUndefined();
    expect(await query(`SELECT "id" FROM "Account"`)).toEqual(before);
    expect(await query(`SELECT "subject" FROM "OidcLogin" WHERE "subject" = 'eve'`)).toEqual([]);
    const page = await (await browser.fetch("/signin?error=oidc_no_verified_email")).text();
    expect(page).toContain("did not confirm your email address");
  });

  it("refuses a wrong state", async () => {
    const browser = new Api(app.url);
    const redirect = await signInAtProvider(await begin(browser), "ada");
    redirect.searchParams.set("state", "not-the-state");
    expect(await arrive(browser, redirect)).toBe("/signin?error=oidc_failed");
    expect(browser.session).toBeUndefined();
  });

  it("refuses a code used before, even under a fresh step of the same browser", async () => {
    const browser = new Api(app.url);
    const redirect = await signInAtProvider(await begin(browser), "ada");
    expect(await arrive(browser, redirect)).toBe("/");
    // The same callback again: its step is used up.
    const replay = new Api(app.url);
    expect(await arrive(replay, redirect)).toBe("/signin?error=oidc_expired");
    // A fresh step whose state the old code is given: the provider refuses the used code.
    const state = new URL(await begin(replay)).searchParams.get("state")!;
    redirect.searchParams.set("state", state);
    expect(await arrive(replay, redirect)).toBe("/signin?error=oidc_failed");
    expect(replay.session).toBeUndefined();
  });

  it("refuses an ID token whose nonce is not the step's", async () => {
    const browser = new Api(app.url);
    const redirect = await signInAtProvider(await begin(browser), "ada");
    const [step] = await query<{ id: string; data: string }>(
      `SELECT "id", "data" FROM "AuthChallenge" WHERE "kind" = 'oidc'`,
    );
    const data = { ...JSON.parse(step.data), nonce: "another-nonce" };
    await query(`UPDATE "AuthChallenge" SET "data" = ? WHERE "id" = ?`, JSON.stringify(data), step.id);
    expect(await arrive(browser, redirect)).toBe("/signin?error=oidc_failed");
    expect(browser.session).toBeUndefined();
  });

  it("refuses an ID token the provider issued to another application", async () => {
    const browser = new Api(app.url);
    const authorization = new URL(await begin(browser));
    // A real ID token for the other application, for the same person and even the same nonce.
    const verifier = "v".repeat(43);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const other = new URL(`${provider.issuer}/auth`);
    for (const [name, value] of Object.entries({
      client_id: OTHER_CLIENT.id,
      redirect_uri: callback,
      response_type: "code",
      scope: "openid email",
      nonce: authorization.searchParams.get("nonce")!,
      state: "other",
      code_challenge: challenge,
      code_challenge_method: "S256",
    }))
      other.searchParams.set(name, value);
    const otherCode = (await signInAtProvider(other.href, "ada")).searchParams.get("code")!;
    const tokens = await (
      await fetch(`${provider.issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${OTHER_CLIENT.id}:${OTHER_CLIENT.secret}`).toString("base64")}`,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: otherCode,
          redirect_uri: callback,
          code_verifier: verifier,
        }),
      })
    ).json();
    expect(JSON.parse(Buffer.from(tokens.id_token.split(".")[1], "base64url").toString()).aud).toBe(OTHER_CLIENT.id);

    const redirect = await signInAtProvider(authorization.href, "ada");
    provider.swapIdToken = tokens.id_token;
    expect(await arrive(browser, redirect)).toBe("/signin?error=oidc_failed");
    expect(browser.session).toBeUndefined();
  });

  it("finishes nothing in a browser that did not start it (sign-in CSRF)", async () => {
    const attacker = new Api(app.url);
    const redirect = await signInAtProvider(await begin(attacker), "ada");
    const victim = new Api(app.url);
    expect(await arrive(victim, redirect)).toBe("/signin?error=oidc_expired");
    expect(victim.session).toBeUndefined();
  });

  it("goes home instead of to another site, and is not there when accounts are off", async () => {
    const browser = new Api(app.url);
    expect(await signInAs(browser, "ada", "//evil.example/path")).toBe("/");
    const off = scriptedApp("http://127.0.0.1:9/v1");
    await off.start();
    try {
      expect((await fetch(`${off.url}/api/auth/signin/oidc`, { redirect: "manual" })).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
