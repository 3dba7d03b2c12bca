// "Nothing is lost on signing in": what an anonymous browser made (conversations with their runs, library tools,
// API tokens, share links, reviews of others' conversations) becomes the account's when it signs in, through the
// real email link; a second browser's own things join them; signing out leaves a new, empty anonymous identity.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { Mailbox, signInLink } from "../support/mailbox";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
const mailbox = new Mailbox();
let app: AppServer;

beforeAll(async () => {
  await Promise.all([model.start(), mailbox.start()]);
  app = scriptedApp(model.url, { TOOLSMITH_AUTH: "optional", SMTP_URL: mailbox.url }, freshDatabaseUrl());
  await app.start();
});

afterAll(async () => {
  await app.stop();
  await Promise.all([model.stop(), mailbox.stop()]);
});

async function signIn(browser: Api, email: string): Promise<void> {
  const already = mailbox.to(email).length;
  expect((await sendJson(browser, "/api/auth/email", "POST", { email })).status).toBe(202);
  const token = signInLink(await mailbox.next(email, already)).searchParams.get("token");
  await expectJson(await sendJson(browser, "/api/auth/email/verify", "POST", { token }), 200);
}

const ids = (items: { id: string }[]) => items.map((item) => item.id).sort();

/** An anonymous browser's things: a conversation with a run, a library tool, a token, a share link. */
async function makeThings(browser: Api, word: string) {
  model.script(`Say ${word}.`, [{ text: word }]);
  const conversation = await browser.createConversation();
  await browser.run(conversation.id, `Say ${word}.`);
  const tool = await expectJson(
    await sendJson(browser, "/api/tools", "POST", {
      name: `say_${word}`,
      description: `Say ${word}.`,
      parameters_schema: { type: "object", properties: {} },
      code: `function run() { return "${word}"; }`,
    }),
    201,
  );
  const token = await browser.createToken(`${word} script`);
  const share = await expectJson(await sendJson(browser, `/api/conversations/${conversation.id}/share`, "POST"), 201);
  return { conversation, tool, token, share };
}

describe("signing in keeps what the browser made anonymously", () => {
  it("moves it all to the account, joins a second browser's, and starts afresh after signing out", async () => {
    // Someone else's shared conversation, which the browser reviews while anonymous.
    const other = new Api(app.url);
    model.script("Add one.", [{ text: "One." }]);
    const theirs = await other.createConversation();
    const [started] = await other.run(theirs.id, "Add one.");
    const { token: theirLink } = await expectJson(
      await sendJson(other, `/api/conversations/${theirs.id}/share`, "POST"),
      201,
    );

    const desktop = new Api(app.url);
    const first = await makeThings(desktop, "hello");
    await expectJson(
      await sendJson(desktop, `/api/share/${theirLink}/verdicts`, "POST", { runId: started.data.runId, verdict: "up" }),
      201,
    );

    await signIn(desktop, "kim@example.com");
    const account = await expectJson(await desktop.fetch("/api/account"), 200);
    expect(ids((await expectJson(await desktop.fetch("/api/conversations"), 200)).conversations)).toEqual([
      first.conversation.id,
    ]);
    expect((await expectJson(await desktop.fetch("/api/tools"), 200)).tools.map((t: { id: string }) => t.id)).toEqual([
      first.tool.id,
    ]);
    expect(ids(await expectJson(await desktop.fetch("/api/tokens"), 200))).toEqual([first.token.id]);
    // The token made anonymously acts as the account now.
    const viaToken = await fetch(`${app.url}/api/account`, {
      headers: { authorization: `Bearer ${first.token.token}` },
    });
    expect((await expectJson(viaToken, 200)).id).toBe(account.id);
    expect((await fetch(`${app.url}/api/share/${first.share.token}`)).status).toBe(200);
    // The review is the account's: its new verdict on the same run replaces it rather than adding a second.
    await expectJson(
      await sendJson(desktop, `/api/share/${theirLink}/verdicts`, "POST", {
        runId: started.data.runId,
        verdict: "down",
      }),
      201,
    );
    const reviewed = await expectJson(await other.fetch(`/api/conversations/${theirs.id}`), 200);
    const verdicts = reviewed.events.filter((event: { type: string }) => event.type === "verdict_added");
    expect(
      new Set(verdicts.map((event: { verdict: { authorId?: string } }) => JSON.stringify(event.verdict))).size,
    ).toBe(2);

    // A laptop with things of its own signs in to the same account: both sets are there, on both browsers.
    const laptop = new Api(app.url);
    const second = await makeThings(laptop, "bonjour");
    await signIn(laptop, "kim@example.com");
    for (const browser of [laptop, desktop]) {
      const conversations = (await expectJson(await browser.fetch("/api/conversations"), 200)).conversations;
      expect(ids(conversations)).toEqual([first.conversation.id, second.conversation.id].sort());
      expect(ids(await expectJson(await browser.fetch("/api/tokens"), 200))).toEqual(
        [first.token.id, second.token.id].sort(),
      );
    }

    // Signed out, the desktop is a new anonymous identity with nothing; signing in again brings it all back.
    expect((await sendJson(desktop, "/api/auth/signout", "POST", {})).status).toBe(204);
    expect((await expectJson(await desktop.fetch("/api/conversations"), 200)).conversations).toEqual([]);
    await signIn(desktop, "kim@example.com");
    expect((await expectJson(await desktop.fetch("/api/conversations"), 200)).conversations).toHaveLength(2);
  });
});
