import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db/driver/client";

/** lastSeenAt is written at most this often per session, so a busy browser does not write on every request. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** The id a session's cookie secret is kept under: its SHA-256, so the table alone signs no one in. */
export const sessionIdOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

export interface NewSession {
  accountId: string;
  method: "passkey" | "oidc" | "email";
  userAgent: string;
  ip: string;
}

/** A new session; its secret (for the cookie) is returned this once. */
export async function createSession(session: NewSession): Promise<{ id: string; secret: string }> {
  const secret = randomBytes(32).toString("base64url");
  const id = sessionIdOf(secret);
  await db.session.create({ data: { id, ...session, userAgent: session.userAgent.slice(0, 300) } });
  return { id, secret };
}

/** The session a cookie secret opens, or null for an unknown, revoked or deleted account's one. */
export function findSession(id: string) {
  return db.session.findUnique({ where: { id }, select: { id: true, accountId: true, lastSeenAt: true } });
}

/** Note that the session was used, at most once per LAST_SEEN_RESOLUTION_MS. */
export async function touchSession(id: string, lastSeenAt: Date, ip: string): Promise<void> {
  if (Date.now() - lastSeenAt.getTime() < LAST_SEEN_RESOLUTION_MS) return;
  await db.session.updateMany({ where: { id }, data: { lastSeenAt: new Date(), ip } });
}

export function listSessions(accountId: string) {
  return db.session.findMany({
    where: { accountId },
    orderBy: { lastSeenAt: "desc" },
    select: { id: true, method: true, userAgent: true, ip: true, createdAt: true, lastSeenAt: true },
  });
}

/** Revoke one of the account's sessions; false when it has none with that id. */
export async function deleteSession(id: string, accountId: string): Promise<boolean> {
  const { count } = await db.session.deleteMany({ where: { id, accountId } });
  return count > 0;
}

/** Revoke every session of the account: "sign out everywhere". */
export async function deleteAccountSessions(accountId: string): Promise<void> {
  await db.session.deleteMany({ where: { accountId } });
}
