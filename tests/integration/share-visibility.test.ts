import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType } from "../support/api";
import { readSse, watchSse } from "../support/sse";
import { scriptedApp, type AppServer } from "../support/app-server";
import { seedSignedInBrowser } from "../support/accounts";
import { freshDatabaseUrl } from "../support/database";
import { ModelServer } from "../support/model-server";

/**
 * Members-only share links (issue 39): a stranger is told to sign in and sees nothing of the conversation, a
 * signed-in account of an allowed domain reads it, an account of another domain finds nothing.
 */
const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let owner: Api;
let conversationId: string;
let token: string;
let member: { cookie: string };
let outsider: { cookie: string };

const TITLE = "Plan the quarterly zebra migration.";
const ANSWER = "Zebras move north on Tuesday.";

beforeAll(async () => {
  await model.start();
  app = scriptedApp(
    model.url,
    { TOOLSMITH_AUTH: "optional", TOOLSMITH_ALLOWED_EMAIL_DOMAINS: "example.com" },
    databaseUrl,
  );
  await app.start();
  owner = new Api(app.url);
  model.script(TITLE, [{ text: ANSWER }]);
  conversationId = (await owner.createConversation()).id;
  await owner.run(conversationId, TITLE);
  member = await browserOf("member@example.com");
  // An account made before the domain list left its domain out: it is no member.
  outsider = await browserOf("someone@elsewhere.org");
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const browserOf = (email: string) => seedSignedInBrowser(databaseUrl, app.url, email);

const share = (visibility?: string) =>
  owner.fetch(`/api/conversations/${conversationId}/share`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: visibility === undefined ? undefined : JSON.stringify({ visibility }),
  });

/** A request with exactly these headers: a stranger with none, a browser's cookie, or an API token. */
const get = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(`${app.url}${path}`, { ...init, headers: { ...headers, ...(init.headers as object) } });
const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/** Every share route, as [label, path, init]. */
const routes = (): [string, string, RequestInit?][] => [
  ["trace", `/api/share/${token}`],
  ["events", `/api/share/${token}/events`],
  ["markdown export", `/api/share/${token}/export?format=md`],
  ["json export", `/api/share/${token}/export?format=json`],
  ["fork", `/api/share/${token}/fork`, post({})],
  ["annotate", `/api/share/${token}/annotations`, post({ eventId: 1, label: "wrong tool" })],
  ["remove annotation", `/api/share/${token}/annotations/x`, { method: "DELETE" }],
  ["verdict", `/api/share/${token}/verdicts`, post({ verdict: "good" })],
];

describe("share link visibility", () => {
  it("makes an anyone link by default, and shows the visibility in the answer and the list", async () => {
    const created = await expectJson(await share(), 201);
    expect(created).toMatchObject({ visibility: "anyone" });
    token = created.token;
    const members = await expectJson(await share("members"), 200);
    expect(members).toMatchObject({ token, visibility: "members" });
    expect(await expectJson(await owner.fetch(`/api/conversations/${conversationId}/share`), 200)).toMatchObject({
      token,
      visibility: "members",
    });
    expect(await expectJson(await owner.fetch("/api/shares"), 200)).toMatchObject([{ token, visibility: "members" }]);
    expect(await (await owner.fetch("/shared")).text()).toContain("members only");
  });

  it("refuses a visibility it does not know, with a sentence", async () => {
    const refused = await expectJson(await share("friends"), 400);
    expect(refused.error.message).toMatch(/visibility/);
  });

  it("answers a stranger 401 sign_in_required on every share route, an anonymous identity too", async () => {
    const anonymous = new Api(app.url);
    await anonymous.identity();
    for (const [label, path, init] of routes()) {
      for (const headers of [{}, { cookie: anonymous.cookie! }] as Record<string, string>[]) {
        const response = await get(path, headers, init);
        const body = await expectJson(response, 401);
        // A write with no cookie at all is stopped before the route (proxy.ts: no_credentials), with a sentence too.
        const write = init?.method !== undefined && headers.cookie === undefined;
        expect(body.error.code, label).toBe(write ? "no_credentials" : "sign_in_required");
        if (!write) expect(body.error.message, label).toMatch(/sign in/i);
        expect(JSON.stringify(body), label).not.toContain("zebra");
      }
    }
  });

  it("shows a stranger only a sign-in prompt on the page: no title, no message, not in the metadata", async () => {
    for (const path of [`/s/${token}`, `/s/${token}/compare`]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(`/signin?next=${encodeURIComponent(path)}`);
      expect(html.toLowerCase()).not.toContain("zebra");
      expect(html).not.toContain(conversationId);
    }
  });

  it("lets a signed-in member read it, by session and by the account's API token", async () => {
    const trace = await expectJson(await get(`/api/share/${token}`, { cookie: member.cookie }), 200);
    expect(trace.title).toBe(TITLE);
    const markdown = await get(`/api/share/${token}/export?format=md`, { cookie: member.cookie });
    expect(await markdown.text()).toContain(ANSWER);
    expect((await get(`/s/${token}`, { cookie: member.cookie }).then((r) => r.text())).includes(ANSWER)).toBe(true);
    const created = await get("/api/tokens", { cookie: member.cookie }, post({ name: "script" }));
    const { token: apiToken } = await expectJson(created, 201);
    const byToken = await expectJson(await get(`/api/share/${token}`, { authorization: `Bearer ${apiToken}` }), 200);
    expect(byToken.title).toBe(TITLE);
    // An anonymous identity's API token is no account's.
    const anonymousToken = (await new Api(app.url).createToken("anonymous")).token;
    const refused = await get(`/api/share/${token}`, { authorization: `Bearer ${anonymousToken}` });
    expect((await expectJson(refused, 401)).error.code).toBe("sign_in_required");
  });

  it("answers an account of a domain left out 404, on the routes and the page", async () => {
    for (const [label, path, init] of routes()) {
      const response = await get(path, { cookie: outsider.cookie }, init);
      expect(response.status, label).toBe(404);
      expect(await response.text(), label).not.toContain("zebra");
    }
    const page = await get(`/s/${token}`, { cookie: outsider.cookie });
    expect(page.status).toBe(404);
    expect((await page.text()).toLowerCase()).not.toContain("zebra");
  });

  it("opens the link to anyone again, same token, and revoking still closes it", async () => {
    expect(await expectJson(await share("anyone"), 200)).toMatchObject({ token, visibility: "anyone" });
    expect((await expectJson(await get(`/api/share/${token}`), 200)).title).toBe(TITLE);
    await expectJson(await share("members"), 200);
    expect((await owner.fetch(`/api/conversations/${conversationId}/share`, { method: "DELETE" })).status).toBe(204);
    expect((await get(`/api/share/${token}`, { cookie: member.cookie })).status).toBe(404);
    expect((await get(`/api/share/${token}`)).status).toBe(404);
    expect((await get(`/s/${token}`)).status).toBe(404);
  });

  it("cuts a stranger's stream open on a link made members-only, mid-run; a member's reconnection is let in", async () => {
    const id = (await owner.createConversation()).id;
    const prompt = "Talk slowly while the link closes to members.";
    model.script(prompt, [{ deltas: 400, numbered: true, delayMs: 10 }]);
    const { token: link } = await expectJson(
      await owner.fetch(`/api/conversations/${id}/share`, post({ visibility: "anyone" })),
      201,
    );
    const own = readSse(await owner.send(id, prompt));
    const stranger = watchSse(await get(`/api/share/${link}/events`));
    await expect.poll(() => ofType(stranger.shown, "text_delta").length, { timeout: 5_000 }).toBeGreaterThan(0);

    await expectJson(await owner.fetch(`/api/conversations/${id}/share`, post({ visibility: "members" })), 200);
    const changedAt = performance.now();
    expect(await stranger.end).toBe("cut off");
    expect(performance.now() - changedAt).toBeLessThan(1_000);
    const resume = { "last-event-id": String(stranger.shown.at(-1)!.id) };
    expect((await get(`/api/share/${link}/events`, resume)).status).toBe(401);
    const again = await get(`/api/share/${link}/events`, { ...resume, cookie: member.cookie });
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect(ofType(await own, "text_delta")).toHaveLength(400);
  });

  it("lets only the owner change a link's visibility", async () => {
    const other = new Api(app.url);
    const response = await other.fetch(`/api/conversations/${conversationId}/share`, post({ visibility: "anyone" }));
    expect(response.status).toBe(404);
  });
});

describe("with accounts off", () => {
  let plain: AppServer;
  beforeAll(async () => {
    plain = scriptedApp(model.url, { TOOLSMITH_AUTH: "anonymous" });
    await plain.start();
  });
  afterAll(async () => plain?.stop());

  it("refuses a members-only link with 400 and a sentence, and makes an anyone link", async () => {
    const client = new Api(plain.url);
    const { id } = await client.createConversation();
    const path = `/api/conversations/${id}/share`;
    const refused = await expectJson(await client.fetch(path, post({ visibility: "members" })), 400);
    expect(refused.error.message).toMatch(/accounts.*off/i);
    expect(await expectJson(await client.fetch(path, post({})), 201)).toMatchObject({ visibility: "anyone" });
  });
});
