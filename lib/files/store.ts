import { createHash, randomUUID } from "node:crypto";
import { processWide } from "@/lib/platform/process-wide";
import { config } from "@/lib/settings/config";
import { DatabaseBlobStore } from "./database-store";

import type { StorageKind } from "@/lib/db/queries/files";

export type { StorageKind };

/**
 * Where the files' bytes live, as blobs every instance can reach: chunks in the database, or objects in an S3
 * bucket. A blob is written once under a new id and never changed: a file's new version is a new blob.
 */
export interface BlobStore {
  readonly kind: StorageKind;
  /** Store the bytes `source` yields, as they come (never all of them in memory); a failure of `source` rejects. */
  put(blobId: string, source: AsyncIterable<Uint8Array>): Promise<void>;
  /** The bytes, as they are read. */
  get(blobId: string): AsyncIterable<Uint8Array>;
  /** Gone from the store; blobs that are not there are no error. */
  remove(blobIds: string[]): Promise<void>;
  /** A second blob with the same bytes (a fork's files). */
  copy(fromBlobId: string, toBlobId: string): Promise<void>;
  /** Whether a blob is there (tests check that deleting deletes the bytes). */
  has(blobId: string): Promise<boolean>;
}

/** The store new blobs go to: the bucket when one is configured, else the database. */
export function blobStore(): BlobStore {
  return storeOf(config.files.s3 ? "s3" : "database");
}

/** The store a stored file's bytes are in, whichever is configured now. */
export function storeOf(kind: StorageKind): BlobStore {
  return processWide(`blobStore:${kind}`, () =>
    kind === "s3"
      ? loadedOnUse(kind, async () => new (await import("./s3-store")).S3BlobStore(config.files.s3!))
      : new DatabaseBlobStore(),
  );
}

/**
 * A store whose module is loaded at its first use: the S3 client's modules cost every server start about 70 ms of its
 * 1.1 s of CPU, with or without a bucket.
 */
function loadedOnUse(kind: StorageKind, load: () => Promise<BlobStore>): BlobStore {
  let loading: Promise<BlobStore> | undefined;
  const store = () => (loading ??= load());
  return {
    kind,
    put: async (blobId, source) => (await store()).put(blobId, source),
    async *get(blobId) {
      yield* (await store()).get(blobId);
    },
    remove: async (blobIds) => (await store()).remove(blobIds),
    copy: async (fromBlobId, toBlobId) => (await store()).copy(fromBlobId, toBlobId),
    has: async (blobId) => (await store()).has(blobId),
  };
}

/** A file's bytes would pass a limit: the upload or the tool's write is refused with `message` (413). */
export class FileTooLargeError extends Error {}

export interface WrittenBlob {
  blobId: string;
  storage: StorageKind;
  size: number;
  sha256: string;
}

/**
 * Write `source` as a new blob, counting and hashing it on the way; past `maxBytes` it stops, removes what it wrote
 * and throws FileTooLargeError with `tooLarge(maxBytes)`.
 */
export async function writeBlob(
  source: AsyncIterable<Uint8Array>,
  maxBytes: number,
  tooLarge: (maxBytes: number) => string,
): Promise<WrittenBlob> {
  const store = blobStore();
  const blobId = randomUUID();
  const hash = createHash("sha256");
  let size = 0;
  async function* counted() {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new FileTooLargeError(tooLarge(maxBytes));
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await store.put(blobId, counted());
  } catch (error) {
    await store.remove([blobId]).catch(() => {});
    throw error;
  }
  return { blobId, storage: store.kind, size, sha256: hash.digest("hex") };
}

/** A whole blob in memory: for what needs it so (an image for the model, an account's export), never an upload. */
export async function readBlob(blob: { storage: string; blobId: string }): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of storeOf(blob.storage as StorageKind).get(blob.blobId)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
