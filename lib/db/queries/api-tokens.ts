import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db/driver/client";

const PREFIX = "tsk_";
/** lastUsedAt is written at most this often per token, so a busy script does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const hash = (token: string) => createHash("sha256").update(token).digest("hex");
const listed = { id: true, name: true, createdAt: true, lastUsedAt: true } as const;

/** A new token for `ownerId`; the token itself is returned this once and only its hash is kept. */
export async function createApiToken(ownerId: string, name: string) {
  const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await db.apiToken.create({ data: { ownerId, name, tokenHash: hash(token) }, select: listed });
  return { ...row, token };
}

export function listApiTokens(ownerId: string) {
  return db.apiToken.findMany({ where: { ownerId }, orderBy: { createdAt: "desc" }, select: listed });
}

/** Revoke one of `ownerId`'s tokens; false when it has none with that id. */
export async function deleteApiToken(id: string, ownerId: string): Promise<boolean> {
  const { count } = await db.apiToken.deleteMany({ where: { id, ownerId } });
  return count > 0;
}

/** The identity a token acts as, or undefined for an unknown or revoked one. */
export async function identityOfToken(token: string): Promise<string | undefined> {
  if (!token.startsWith(PREFIX)) return undefined;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hash(token) },
    select: { id: true, ownerId: true, lastUsedAt: true },
  });
  if (!row) return undefined;
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  }
  return row.ownerId;
}
