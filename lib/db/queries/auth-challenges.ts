import { createHash, randomBytes } from "node:crypto";
import { db } from "@/lib/db/driver/client";

/** The steps of a sign-in in progress, each used once (see AuthChallenge in prisma/schema.prisma). */
export type ChallengeKind = "passkey_register" | "passkey_signin" | "oidc" | "email";

const idOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A new step; its secret (for a cookie or a link) is returned this once, and only its hash is kept. */
export async function createChallenge(kind: ChallengeKind, data: object, lifetimeMs: number): Promise<string> {
  const secret = randomBytes(32).toString("base64url");
  await db.$transaction([
    // Steps nobody finished: gone once expired, so the table holds only what is in progress.
    db.authChallenge.deleteMany({ where: { expiresAt: { lt: new Date() } } }),
    db.authChallenge.create({
      data: { id: idOf(secret), kind, data: JSON.stringify(data), expiresAt: new Date(Date.now() + lifetimeMs) },
    }),
  ]);
  return secret;
}

/** A step's data without using it up (a page that asks the person to confirm), if it stands. */
export async function peekChallenge<Data>(kind: ChallengeKind, secret: string): Promise<Data | undefined> {
  const row = await db.authChallenge.findUnique({ where: { id: idOf(secret) } });
  return row && row.kind === kind && row.expiresAt > new Date() ? (JSON.parse(row.data) as Data) : undefined;
}

/**
 * Use a step up: its data if it stood, and in every case it is gone, so a second use (a replay, a link clicked
 * twice, two tabs racing) finds nothing. Deleting is the check: of two uses at once, one deletes the row.
 */
export async function takeChallenge<Data>(kind: ChallengeKind, secret: string): Promise<Data | undefined> {
  const row = await db.authChallenge.findUnique({ where: { id: idOf(secret) } });
  if (!row) return undefined;
  const { count } = await db.authChallenge.deleteMany({ where: { id: row.id } });
  return count === 1 && row.kind === kind && row.expiresAt > new Date() ? (JSON.parse(row.data) as Data) : undefined;
}
