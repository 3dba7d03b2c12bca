import { copyChunks, deleteChunks, findChunk, hasChunks, insertChunk } from "@/lib/db/queries/file-chunks";
import type { BlobStore } from "./store";

/** Bytes per stored chunk: a row small enough to write and read at once, few enough rows for a 25 MB file. */
export const CHUNK_BYTES = 256 * 1024;

/** Blobs as rows of FileChunk, written and read one chunk at a time (SQLite and PostgreSQL alike). */
export class DatabaseBlobStore implements BlobStore {
  readonly kind = "database";

  async put(blobId: string, source: AsyncIterable<Uint8Array>): Promise<void> {
    let seq = 0;
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const data = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await insertChunk(blobId, seq++, data);
    };
    for await (const chunk of source) {
      for (let offset = 0; offset < chunk.byteLength;) {
        const piece = chunk.subarray(offset, offset + CHUNK_BYTES - pendingBytes);
        pending.push(piece);
        pendingBytes += piece.byteLength;
        offset += piece.byteLength;
        if (pendingBytes === CHUNK_BYTES) await flush();
      }
    }
    // An empty file is one empty chunk: it is there.
    if (pendingBytes > 0 || seq === 0) await flush();
  }

  async *get(blobId: string): AsyncIterable<Uint8Array> {
    for (let seq = 0; ; seq++) {
      const data = await findChunk(blobId, seq);
      if (!data) return;
      if (data.byteLength > 0) yield data;
    }
  }

  remove = deleteChunks;
  copy = copyChunks;
  has = hasChunks;
}
