import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { seedSignedInBrowser } from "../support/accounts";
import { freshDatabaseUrl } from "../support/database";
import { ModelServer } from "../support/model-server";

/** The admin's routes (issue 39): every account, per-account profiles set and enforced, the whole audit log. */
const CONFIG = `profiles:
  - name: calculator
    tools: [calculate]
  - name: careful
    tools: [calculate]
    think: false
default_profile: calculator
`;

const model = new ModelServer();
const databaseUrl = freshDatabaseUrl();
let app: AppServer;
let admin: { accountId: string; cookie: string };
let member: { accountId: string; cookie: string };

const browserOf = (email: string) => seedSignedInBrowser(databaseUrl, app.url, email);

const call = (who: { cookie: string } | undefined, path: string, method = "GET", body?: unknown) =>
  fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(who ? { cookie: who.cookie } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  await model.start();
  const file = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(file, CONFIG);
  app = scriptedApp(
    model.url,
    { TOOLSMITH_CONFIG: file, TOOLSMITH_AUTH: "optional", TOOLSMITH_ADMIN_EMAILS: "boss@example.com" },
    databaseUrl,
  );
  await app.start();
  admin = await browserOf("Boss@example.com");
  member = await browserOf("member@example.com");
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("admin routes", () => {
  it("lists every account for an admin, and is not there for anyone else", async () => {
    const accounts = await expectJson(await call(admin, "/api/admin/accounts"), 200);
    expect(accounts).toEqual([
      expect.objectContaining({ id: admin.accountId, email: "boss@example.com", profiles: null }),
      expect.objectContaining({ id: member.accountId, email: "member@example.com", profiles: null }),
    ]);
    const anonymous = new Api(app.url);
    await anonymous.identity();
    for (const who of [member, { cookie: anonymous.cookie! }]) {
      expect((await call(who, "/api/admin/accounts")).status).toBe(404);
      expect(
        (await call(who, `/api/admin/accounts/${member.accountId}/profiles`, "PUT", { profiles: [] })).status,
      ).toBe(404);
      expect((await call(who, "/admin")).status).toBe(404);
      expect((await call(who, "/api/audit?all=1")).status).toBe(404);
      expect((await call(who, "/api/audit/export?all=1")).status).toBe(404);
      expect((await call(who, "/audit?all=1")).status).toBe(404);
    }
    // The nav links the admin's page for admins only.
    expect(await (await call(admin, "/tools")).text()).toContain('href="/admin"');
    expect(await (await call(member, "/tools")).text()).not.toContain('href="/admin"');
    expect(await (await call(admin, "/admin")).text()).toContain("member@example.com");
  });

  it("refuses unknown profiles with 400 naming the unknown one, and an unknown account with 404", async () => {
    const refused = await expectJson(
      await call(admin, `/api/admin/accounts/${member.accountId}/profiles`, "PUT", { profiles: ["careful", "wizard"] }),
      400,
    );
    expect(refused.error.message).toContain('"wizard"');
    expect((await call(admin, "/api/admin/accounts/nobody/profiles", "PUT", { profiles: null })).status).toBe(404);
    expect(
      (await call(admin, `/api/admin/accounts/${member.accountId}/profiles`, "PUT", { profiles: "x" })).status,
    ).toBe(400);
  });

  it("enforces an account's profiles: create, change and run under another answer 403 naming the allowed ones", async () => {
    const set = await expectJson(
      await call(admin, `/api/admin/accounts/${member.accountId}/profiles`, "PUT", { profiles: ["careful"] }),
      200,
    );
    expect(set).toMatchObject({ id: member.accountId, profiles: ["careful"] });
    const created = await call(member, "/api/conversations", "POST", { profile: "calculator" });
    const body = await expectJson(created, 403);
    expect(body.error.message).toContain('"careful"');
    // With no profile, the conversation has the default one, which the account may not run.
    const plain = await expectJson(await call(member, "/api/conversations", "POST", {}), 201);
    expect((await call(member, `/api/conversations/${plain.id}/messages`, "POST", { content: "hi" })).status).toBe(403);
    expect((await call(member, `/api/conversations/${plain.id}`, "PATCH", { profile: "calculator" })).status).toBe(403);
    const allowed = await expectJson(
      await call(member, `/api/conversations/${plain.id}`, "PATCH", { profile: "careful" }),
      200,
    );
    expect(allowed.profile).toBe("careful");
    model.script("Add one and one.", [
      { toolCalls: [{ name: "calculate", args: { expression: "1 + 1" } }] },
      { text: "2" },
    ]);
    const run = await call(member, `/api/conversations/${plain.id}/messages`, "POST", { content: "Add one and one." });
    expect(run.status).toBe(200);
    await run.text();
    // The picker offers only the allowed profile.
    const page = await (await call(member, "/")).text();
    expect(page).toContain("careful");
    expect(page).not.toMatch(/"names":\["calculator"/);
    // An anonymous identity may use every profile.
    const anonymous = new Api(app.url);
    expect((await anonymous.createConversation("calculator")).id).toBeTruthy();
    // Back to every profile.
    await expectJson(
      await call(admin, `/api/admin/accounts/${member.accountId}/profiles`, "PUT", { profiles: null }),
      200,
    );
    expect((await call(member, "/api/conversations", "POST", { profile: "calculator" })).status).toBe(201);
  });

  it("shows an admin the whole audit log, each entry with its owner", async () => {
    const anonymous = new Api(app.url);
    const { id } = await anonymous.createConversation();
    model.script("Add two and two.", [
      { toolCalls: [{ name: "calculate", args: { expression: "2 + 2" } }] },
      { text: "4" },
    ]);
    await anonymous.run(id, "Add two and two.");
    const whole = await expectJson(await call(admin, "/api/audit?all=1"), 200);
    const owners = whole.entries.map((entry: { owner: string }) => entry.owner);
    expect(owners).toEqual(expect.arrayContaining(["member@example.com", "anonymous"]));
    // The member's own log has only theirs, without owners.
    const own = await expectJson(await call(member, "/api/audit"), 200);
    expect(own.entries).toHaveLength(1);
    expect(own.entries[0]).not.toHaveProperty("owner");
    const csv = await (await call(admin, "/api/audit/export?all=1")).text();
    expect(csv.split("\n")[0]).toMatch(/,owner$/);
    expect(csv).toContain("member@example.com");
    expect(await (await call(admin, "/audit?all=1")).text()).toContain("member@example.com");
  });
});
