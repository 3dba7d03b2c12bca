import { db } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";

/** A value, unless it is missing or expired (an expired one is removed on the way). */
export async function getValue(namespace: string, key: string): Promise<{ value: string } | undefined> {
  const row = await db.keyValue.findUnique({
    where: { namespace_key: { namespace, key } },
    select: { value: true, expiresAt: true },
  });
  if (!row) return undefined;
  const now = databaseClock.now();
  if (row.expiresAt && row.expiresAt <= now) {
    await db.keyValue.deleteMany({ where: { namespace, key, expiresAt: { lte: now } } });
    return undefined;
  }
  return { value: row.value };
}

/** Live keys of a namespace, the expired ones not counted. */
export function countKeys(namespace: string): Promise<number> {
  return db.keyValue.count({
    where: { namespace, OR: [{ expiresAt: null }, { expiresAt: { gt: databaseClock.now() } }] },
  });
}

export async function keyExists(namespace: string, key: string): Promise<boolean> {
  return (await getValue(namespace, key)) !== undefined;
}

/** Store a value, kept for `ttlSeconds` when given; returns when it expires. */
export async function setValue(
  namespace: string,
  key: string,
  value: string,
  ttlSeconds?: number,
): Promise<Date | null> {
  const expiresAt = ttlSeconds ? databaseClock.at(performance.now() + ttlSeconds * 1000) : null;
  await db.keyValue.upsert({
    where: { namespace_key: { namespace, key } },
    create: { namespace, key, value, expiresAt },
    update: { value, expiresAt },
  });
  return expiresAt;
}

export async function deleteValue(namespace: string, key: string): Promise<boolean> {
  const { count } = await db.keyValue.deleteMany({ where: { namespace, key } });
  return count > 0;
}
