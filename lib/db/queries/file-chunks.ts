import { sql } from "@/lib/db/driver/client";

/**
 * The pieces of the files' bytes kept in the database (lib/files/database-store.ts), one row each, as base64 text
 * (prisma/schema.prisma says why), through plain statements: nothing of a chunk is kept once it is written or read.
 */
export async function insertChunk(blobId: string, seq: number, data: Uint8Array): Promise<void> {
  await sql.execute(`INSERT INTO "FileChunk" ("blobId", "seq", "data") VALUES (?, ?, ?)`, [
    blobId,
    seq,
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64"),
  ]);
}

export async function findChunk(blobId: string, seq: number): Promise<Buffer | undefined> {
  const [row] = await sql.rows<{ data: string }>(`SELECT "data" FROM "FileChunk" WHERE "blobId" = ? AND "seq" = ?`, [
    blobId,
    seq,
  ]);
  return row && Buffer.from(row.data, "base64");
}

export async function deleteChunks(blobIds: string[]): Promise<void> {
  if (blobIds.length === 0) return;
  await sql.execute(`DELETE FROM "FileChunk" WHERE "blobId" IN (${blobIds.map(() => "?").join(", ")})`, blobIds);
}

export async function copyChunks(fromBlobId: string, toBlobId: string): Promise<void> {
  await sql.execute(
    `INSERT INTO "FileChunk" ("blobId", "seq", "data") SELECT ?, "seq", "data" FROM "FileChunk" WHERE "blobId" = ?`,
    [toBlobId, fromBlobId],
  );
}

export async function hasChunks(blobId: string): Promise<boolean> {
  const rows = await sql.rows(`SELECT 1 FROM "FileChunk" WHERE "blobId" = ? LIMIT 1`, [blobId]);
  return rows.length > 0;
}
