import { db, sql } from "@/lib/db/driver/client";

/** The pieces of the files' bytes kept in the database (lib/files/database-store.ts), one row each. */
export async function insertChunk(blobId: string, seq: number, data: Uint8Array<ArrayBuffer>): Promise<void> {
  await db.fileChunk.create({ data: { blobId, seq, data } });
}

export async function findChunk(blobId: string, seq: number): Promise<Uint8Array | undefined> {
  const chunk = await db.fileChunk.findUnique({ where: { blobId_seq: { blobId, seq } }, select: { data: true } });
  return chunk?.data;
}

export async function deleteChunks(blobIds: string[]): Promise<void> {
  if (blobIds.length > 0) await db.fileChunk.deleteMany({ where: { blobId: { in: blobIds } } });
}

export async function copyChunks(fromBlobId: string, toBlobId: string): Promise<void> {
  await sql.execute(
    `INSERT INTO "FileChunk" ("blobId", "seq", "data") SELECT ?, "seq", "data" FROM "FileChunk" WHERE "blobId" = ?`,
    [toBlobId, fromBlobId],
  );
}

export async function hasChunks(blobId: string): Promise<boolean> {
  return (await db.fileChunk.count({ where: { blobId } })) > 0;
}
