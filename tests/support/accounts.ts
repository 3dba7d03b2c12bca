import { createHash, randomBytes, randomUUID } from "node:crypto";
import { sqlClient } from "./database";

/**
 * An account and a session for it, stored straight into a test's database, for tests about what a signed-in person
 * can do (each way of signing in has its own tests, through its real flow). Returns the account's id and the Cookie
 * header value a signed-in browser sends.
 */
export async function seedSignedIn(
  databaseUrl: string,
  email: string,
): Promise<{ accountId: string; sessionId: string; cookie: string }> {
  const client = await sqlClient(databaseUrl);
  try {
    const address = email.toLowerCase();
    const existing = await client.query<{ id: string }>(`SELECT "id" FROM "Account" WHERE "email" = ?`, address);
    const accountId = existing[0]?.id ?? randomUUID();
    if (!existing[0]) await client.query(`INSERT INTO "Account" ("id", "email") VALUES (?, ?)`, accountId, address);
    const secret = randomBytes(32).toString("base64url");
    const sessionId = createHash("sha256").update(secret).digest("hex");
    await client.query(
      `INSERT INTO "Session" ("id", "accountId", "method", "userAgent", "ip") VALUES (?, ?, 'email', 'test', '127.0.0.1')`,
      sessionId,
      accountId,
    );
    return { accountId, sessionId, cookie: `toolsmith_session=${secret}` };
  } finally {
    await client.close();
  }
}

/** One statement on a test's database, through a connection of its own. */
export async function queryDatabase<Row>(databaseUrl: string, sql: string, ...params: unknown[]): Promise<Row[]> {
  const database = await sqlClient(databaseUrl);
  try {
    return await database.query<Row>(sql, ...params);
  } finally {
    await database.close();
  }
}

/** The email of the account a client's session cookie ("toolsmith_session=…") is signed in as, by the session table. */
export async function signedInEmail(databaseUrl: string, session: string | undefined): Promise<string | undefined> {
  if (!session) return undefined;
  const [row] = await queryDatabase<{ email: string }>(
    databaseUrl,
    `SELECT a."email" FROM "Session" s JOIN "Account" a ON a."id" = s."accountId" WHERE s."id" = ?`,
    createHash("sha256")
      .update(session.slice(session.indexOf("=") + 1))
      .digest("hex"),
  );
  return row?.email;
}

/** A signed-in browser's cookies: a seeded session, and the anonymous identity every browser of the app also has. */
export async function seedSignedInBrowser(databaseUrl: string, appUrl: string, email: string) {
  const seeded = await seedSignedIn(databaseUrl, email);
  const identity = (await fetch(`${appUrl}/api/conversations`)).headers
    .getSetCookie()
    .find((cookie) => /^(__Host-)?toolsmith_id=/.test(cookie))!
    .split(";")[0];
  return { ...seeded, cookie: `${seeded.cookie}; ${identity}` };
}
