// Signing in by email link (lib/accounts/email-link.ts) through a real SMTP server: the link, its one use, its
// lifetime, its address, the same answer for every address, the rate limits, and the attacks on sign-in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { queryDatabase, signedInEmail } from "../support/accounts";
import { Mailbox, signInLink } from "../support/mailbox";

const mailbox = new Mailbox();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;

beforeAll(async () => {
  await mailbox.start();
  app = scriptedApp(
    "http://127.0.0.1:9/v1",
    {
      TOOLSMITH_AUTH: "optional",
      TOOLSMITH_ALLOWED_EMAIL_DOMAINS: "example.com",
      SMTP_URL: mailbox.url,
    },
    databaseUrl,
  );
  await app.start();
});

afterAll(async () => {
  await app.stop();
  await mailbox.stop();
});

const askForLink = (client: Api, email: string) => sendJson(client, "/api/auth/email", "POST", { email });

/** Ask for a link for `email` and return its token, as the email has it. */
async function linkFor(client: Api, email: string): Promise<string> {
  const already = mailbox.to(email).length;
  expect((await askForLink(client, email)).status).toBe(202);
  return signInLink(await mailbox.next(email, already)).searchParams.get("token")!;
}

const verify = (client: Api, token: string) => sendJson(client, "/api/auth/email/verify", "POST", { token });

const query = <Row>(sql: string, ...params: unknown[]) => queryDatabase<Row>(databaseUrl, sql, ...params);
const accountOf = (client: Api) => signedInEmail(databaseUrl, client.session);

describe("sign-in by email link", () => {
  it("mails a link whose page asks to continue, and signs in with what the browser made anonymously", async () => {
    const browser = new Api(app.url);
    const made = await browser.createConversation();
    const token = await linkFor(browser, "ada@example.com");

    const page = await (await browser.fetch(`/signin/email?token=${token}`)).text();
    expect(page).toContain("Continue as <!-- -->ada@example.com");
    // Opening the page used nothing up: a mail scanner that follows links signs nobody in.
    expect(await query(`SELECT "id" FROM "AuthChallenge" WHERE "kind" = 'email'`)).toHaveLength(1);

    expect(await expectJson(await verify(browser, token), 200)).toEqual({ next: "/" });
    expect(await accountOf(browser)).toBe("ada@example.com");
    const listed = await expectJson(await browser.fetch("/api/conversations"), 200);
    expect(listed.conversations.map((c: { id: string }) => c.id)).toContain(made.id);
  });

  it("answers 202 alike for a new address, an account's and a domain that may not have one, and mails only the first two", async () => {
    const client = new Api(app.url);
    const answers = [];
    for (const email of ["new@example.com", "ada@example.com", "mallory@elsewhere.org"]) {
      const response = await askForLink(client, email);
      answers.push([response.status, await response.text()]);
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0][0]).toBe(202);
    await mailbox.next("new@example.com", 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mailbox.to("mallory@elsewhere.org")).toEqual([]);
  });

  it("refuses a link used twice, an expired one, and one changed by a character", async () => {
    const first = new Api(app.url);
    const token = await linkFor(first, "bea@example.com");
    await expectJson(await verify(first, token), 200);
    const again = await expectJson(await verify(new Api(app.url), token), 400);
    expect(again.error.message).toMatch(/used already or has expired/);

    const expired = await linkFor(first, "bea@example.com");
    await query(
      `UPDATE "AuthChallenge" SET "expiresAt" = ? WHERE "kind" = 'email'`,
      new Date(Date.now() - 1000).toISOString(),
    );
    await expectJson(await verify(new Api(app.url), expired), 400);

    const fresh = await linkFor(first, "bea@example.com");
    const changed = fresh.slice(0, -1) + (fresh.endsWith("A") ? "B" : "A");
    const stranger = new Api(app.url);
    await expectJson(await verify(stranger, changed), 400);
    expect(stranger.session).toBeUndefined();
  });

  it("signs in only as the address the link was sent to", async () => {
    const mallory = new Api(app.url);
    const token = await linkFor(mallory, "mallory.own@example.com");
    // The body names nothing but the token: no field can point the link at another address.
    await expectJson(
      await sendJson(mallory, "/api/auth/email/verify", "POST", { token, email: "ada@example.com" }),
      400,
    );
    await expectJson(await verify(mallory, token), 200);
    expect(await accountOf(mallory)).toBe("mallory.own@example.com");
  });

  it("starts a new session at every sign-in and keeps none planted before it", async () => {
    const browser = new Api(app.url);
    const planted = "toolsmith_session=" + "A".repeat(43);
    browser.session = planted;
    await expectJson(await verify(browser, await linkFor(browser, "cy@example.com")), 200);
    expect(browser.session).not.toBe(planted);
    const first = browser.session;
    await expectJson(await verify(browser, await linkFor(browser, "cy@example.com")), 200);
    expect(browser.session).not.toBe(first);
    // The session it replaced is over.
    const old = new Api(app.url);
    old.session = first;
    expect(await accountOf(old)).toBeUndefined();
  });

  it("refuses a sign-in posted from another site (sign-in CSRF)", async () => {
    const browser = new Api(app.url);
    const token = await linkFor(browser, "dee@example.com");
    const response = await browser.fetch("/api/auth/email/verify", {
      method: "POST",
      headers: { "content-type": "application/json", "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      body: JSON.stringify({ token }),
    });
    expect(response.status).toBe(403);
    expect(browser.session).toBeUndefined();
  });
});

describe("email links' limits", () => {
  it("allows three links an address and thirty a client (an office shares one) per quarter hour, then 429 with Retry-After", async () => {
    const limited = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "optional", SMTP_URL: mailbox.url });
    await limited.start();
    try {
      const client = new Api(limited.url);
      const ask = (email: string) => sendJson(client, "/api/auth/email", "POST", { email });
      for (let i = 0; i < 3; i++) expect((await ask("flood@example.com")).status).toBe(202);
      const perAddress = await ask("flood@example.com");
      expect(perAddress.status).toBe(429);
      expect(Number(perAddress.headers.get("retry-after"))).toBeGreaterThan(0);
      // An address with no account is limited the same way: the 429 tells nothing about accounts.
      for (let i = 0; i < 3; i++) expect((await ask("nobody@example.com")).status).toBe(202);
      expect((await ask("nobody@example.com")).status).toBe(429);
      for (let i = 0; i < 24; i++) expect((await ask(`other${i}@example.com`)).status).toBe(202);
      // Thirty taken from this client by now: the next, to a fresh address, is refused.
      expect((await ask("fresh@example.com")).status).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it("is not offered when accounts are off or no SMTP relay is set", async () => {
    const off = scriptedApp("http://127.0.0.1:9/v1", { SMTP_URL: mailbox.url });
    const noMail = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "optional" });
    await Promise.all([off.start(), noMail.start()]);
    try {
      const offAnswer = await expectJson(
        await sendJson(new Api(off.url), "/api/auth/email", "POST", { email: "a@example.com" }),
        404,
      );
      expect(offAnswer.error.message).toMatch(/TOOLSMITH_AUTH/);
      expect((await fetch(`${off.url}/signin`)).status).toBe(404);
      const noMailAnswer = await expectJson(
        await sendJson(new Api(noMail.url), "/api/auth/email", "POST", { email: "a@example.com" }),
        404,
      );
      expect(noMailAnswer.error.message).toMatch(/SMTP_URL/);
      const page = await (await fetch(`${noMail.url}/signin`)).text();
      expect(page).not.toContain("Send me a link");
    } finally {
      await Promise.all([off.stop(), noMail.stop()]);
    }
  });
});
