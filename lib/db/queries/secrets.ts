import { randomUUID } from "node:crypto";
import { db, lockOwner, transaction } from "@/lib/db/driver/client";

/** Whose secrets: a person's identity, or null for those an admin keeps for everyone. */
export type SecretOwner = string | null;

/** What a secret shows: never its sealed value. */
const listed = { id: true, name: true, hosts: true, createdAt: true, updatedAt: true, lastUsedAt: true } as const;

export type SecretRow = Awaited<ReturnType<typeof listSecrets>>[number];

/** An owner's secrets (everyone's for null), by name, without their values. */
export async function listSecrets(ownerId: SecretOwner) {
  const rows = await db.secret.findMany({ where: { ownerId }, orderBy: { name: "asc" }, select: listed });
  return rows.map(withHosts);
}

export interface SecretWrite {
  ownerId: SecretOwner;
  name: string;
  hosts: string[];
  /** The value sealed for the row's id (it is bound to it): called with the new row's id, or the replaced one's. */
  seal: (id: string) => string;
}

/**
 * Store a secret, or replace the value and hosts of the owner's secret of that name, unless the owner has `most`
 * already. One transaction serialised per owner, so concurrent additions cannot all pass the count.
 */
export async function putSecret(
  { ownerId, name, hosts, seal }: SecretWrite,
  most: number,
): Promise<{ row: SecretRow; created: boolean } | "limit_reached"> {
  return transaction(async (tx) => {
    await lockOwner(tx, SECRETS_LOCK, ownerId);
    const existing = await tx.secret.findFirst({ where: { ownerId, name }, select: { id: true } });
    const data = { hosts: JSON.stringify(hosts) };
    if (existing) {
      const row = await tx.secret.update({
        where: { id: existing.id },
        data: { ...data, value: seal(existing.id) },
        select: listed,
      });
      return { row: withHosts(row), created: false };
    }
    if ((await tx.secret.count({ where: { ownerId } })) >= most) return "limit_reached" as const;
    const id = randomUUID();
    const row = await tx.secret.create({ data: { ...data, id, ownerId, name, value: seal(id) }, select: listed });
    return { row: withHosts(row), created: true };
  });
}

/** The advisory locks' first key for an owner's secrets (the second is its identity's hash): this file's own. */
const SECRETS_LOCK = 4041;

/** Remove an owner's secret by name (everyone's for null); false when it has none of that name. */
export async function deleteSecret(ownerId: SecretOwner, name: string): Promise<boolean> {
  const { count } = await db.secret.deleteMany({ where: { ownerId, name } });
  return count > 0;
}

/** The secrets of these names that `ownerId` has and that everyone has, sealed values included, for a call. */
export async function sealedSecrets(ownerId: string, names: readonly string[]) {
  const rows = await db.secret.findMany({
    where: { name: { in: [...names] }, OR: [{ ownerId }, { ownerId: null }] },
    select: { id: true, ownerId: true, name: true, hosts: true, value: true },
  });
  return rows.map(withHosts);
}

/** Mark secrets used now; at most once a minute each, so a busy tool does not write on every request. */
export async function touchSecrets(ids: string[], now = new Date()): Promise<void> {
  if (ids.length === 0) return;
  const minuteAgo = new Date(now.getTime() - 60_000);
  await db.secret.updateMany({
    where: { id: { in: ids }, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: minuteAgo } }] },
    data: { lastUsedAt: now },
  });
}

function withHosts<Row extends { hosts: string }>(row: Row) {
  return { ...row, hosts: JSON.parse(row.hosts) as string[] };
}
