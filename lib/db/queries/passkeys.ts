import { db } from "@/lib/db/driver/client";

const listed = { id: true, name: true, createdAt: true, lastUsedAt: true, transports: true } as const;

const present = <Row extends { transports: string }>(row: Row) => ({
  ...row,
  transports: JSON.parse(row.transports) as string[],
});

export async function listPasskeys(accountId: string) {
  const rows = await db.passkey.findMany({ where: { accountId }, orderBy: { createdAt: "asc" }, select: listed });
  return rows.map(present);
}

/** A passkey by its credential id, with what verifying an assertion needs. */
export function passkeyById(id: string) {
  return db.passkey.findUnique({ where: { id } });
}

export async function addPasskey(passkey: {
  id: string;
  accountId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
}) {
  const row = await db.passkey.create({
    data: { ...passkey, publicKey: Buffer.from(passkey.publicKey), transports: JSON.stringify(passkey.transports) },
    select: listed,
  });
  return present(row);
}

/** Note a use: the new counter and when. */
export async function notePasskeyUse(id: string, counter: number): Promise<void> {
  await db.passkey.update({ where: { id }, data: { counter, lastUsedAt: new Date() } });
}

/** Rename one of the account's passkeys; null when it has none with that id. */
export async function renamePasskey(id: string, accountId: string, name: string) {
  const { count } = await db.passkey.updateMany({ where: { id, accountId }, data: { name } });
  if (count === 0) return null;
  return present((await db.passkey.findUnique({ where: { id }, select: listed }))!);
}

/** Remove one of the account's passkeys; false when it has none with that id. */
export async function deletePasskey(id: string, accountId: string): Promise<boolean> {
  const { count } = await db.passkey.deleteMany({ where: { id, accountId } });
  return count > 0;
}
