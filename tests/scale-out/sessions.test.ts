// Sessions on several instances (PostgreSQL): each caches what it read of a session, and a revocation on one
// instance reaches the others at once (the `sessions` notification), as does a deleted account's end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { seedSignedIn } from "../support/accounts";
import { freshDatabaseUrl, prepareDatabase } from "../support/database";

const databaseUrl = freshDatabaseUrl();
let a: AppServer;
let b: AppServer;

beforeAll(async () => {
  await prepareDatabase(databaseUrl);
  [a, b] = [0, 1].map(() => scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_AUTH: "optional" }, databaseUrl));
  await Promise.all([a.start({ migrated: true }), b.start({ migrated: true })]);
});
afterAll(() => Promise.all([a?.stop(), b?.stop()]));

/** A browser of `email`'s account on `server`, with a session of its own. */
async function browser(server: AppServer, email: string): Promise<{ client: Api; sessionId: string }> {
  const { cookie, sessionId } = await seedSignedIn(databaseUrl, email);
  const client = new Api(server.url);
  await client.identity();
  client.session = cookie;
  return { client, sessionId };
}

describe("sessions across instances", () => {
  it("refuses at once on B a session that B has cached and A revoked", async () => {
    const onA = await browser(a, "ola@example.com");
    const onB = await browser(b, "ola@example.com");
    expect((await onB.client.fetch("/api/account")).status).toBe(200);
    expect((await onA.client.fetch(`/api/account/sessions/${onB.sessionId}`, { method: "DELETE" })).status).toBe(204);
    expect((await onB.client.fetch("/api/account")).status).toBe(401);
  });

  it("refuses at once on B every session signed out everywhere on A", async () => {
    const onA = await browser(a, "pia@example.com");
    const onB = await browser(b, "pia@example.com");
    expect((await onB.client.fetch("/api/account")).status).toBe(200);
    expect((await sendJson(onA.client, "/api/auth/signout", "POST", { everywhere: true })).status).toBe(204);
    expect((await onB.client.fetch("/api/account")).status).toBe(401);
  });

  it("refuses at once on B a deleted account's session and token", async () => {
    const onA = await browser(a, "quin@example.com");
    const onB = await browser(b, "quin@example.com");
    const { token } = await onB.client.createToken("script");
    const bearer = { headers: { authorization: `Bearer ${token}` } };
    expect((await fetch(`${b.url}/api/account`, bearer)).status).toBe(200);
    expect((await onB.client.fetch("/api/account")).status).toBe(200);
    expect((await sendJson(onA.client, "/api/account", "DELETE", { confirm: "quin@example.com" })).status).toBe(204);
    expect((await fetch(`${b.url}/api/account`, bearer)).status).toBe(401);
    expect((await onB.client.fetch("/api/account")).status).toBe(401);
  });
});
