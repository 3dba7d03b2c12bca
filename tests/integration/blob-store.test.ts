// The files' blob stores against real back ends: chunks in the database (SQLite, and PostgreSQL in the `postgresql`
// project) and objects in an S3 bucket (s3rver on loopback, tests/support/s3-server.ts): round trips at the chunk
// boundaries, a 25 MB stream in constant memory, a refused write leaving nothing behind, removal and copies.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { BlobStore, StorageKind } from "@/lib/files/store";
import { freshDatabaseUrl, prepareDatabase, testProvider } from "../support/database";
import { startS3Server, type S3Server } from "../support/s3-server";

process.env.DATABASE_URL = freshDatabaseUrl();

const KB = 1024;
const MB = 1024 * KB;
const CHUNK = 256 * KB;

let files: typeof import("@/lib/files/store");
let config: (typeof import("@/lib/settings/config"))["config"];
let db: (typeof import("@/lib/db/driver/client"))["db"];
let s3: S3Server | undefined;

beforeAll(async () => {
  await prepareDatabase(process.env.DATABASE_URL!);
  // The bucket does not depend on the database: once, in the SQLite pass.
  if (testProvider === "sqlite") {
    s3 = await startS3Server();
    Object.assign(process.env, s3.env);
  }
  files = await import("@/lib/files/store");
  ({ config } = await import("@/lib/settings/config"));
  ({ db } = await import("@/lib/db/driver/client"));
});
afterAll(async () => {
  await db?.$disconnect();
  await s3?.close();
  if (s3) for (const name of Object.keys(s3.env)) delete process.env[name];
});

/** `bytes` fed in pieces of `piece` bytes. */
async function* pieces(bytes: Uint8Array, piece: number): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += piece) yield bytes.subarray(offset, offset + piece);
}

async function read(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of source) parts.push(part);
  return Buffer.concat(parts);
}

/** `total` bytes of random data made on the fly, 64 KB at a time, hashed as they go; `onPiece` after each. */
function generated(total: number, onPiece: () => void | Promise<void> = () => {}) {
  const hash = createHash("sha256");
  let produced = 0;
  async function* source(): AsyncIterable<Uint8Array> {
    while (produced < total) {
      const piece = randomBytes(Math.min(64 * KB, total - produced));
      hash.update(piece);
      produced += piece.byteLength;
      yield piece;
      await onPiece();
    }
  }
  return { source: source(), sha256: () => hash.digest("hex"), produced: () => produced };
}

// A full collection on demand, to tell the memory a stream holds from the garbage it leaves for later.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

interface MemoryUse {
  /** RSS before, and its peak sampled while running. */
  rss: { before: number; peak: number };
  /** V8's heap in use and the buffers' memory, after a full collection: before, and the peak of the samples. */
  live: { before: number; peak: number };
}

/** The memory still in use after full collections (buffers are freed by a background task: let it run). */
async function liveMemory(): Promise<number> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 1));
  collectGarbage();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * The memory `run` uses: the RSS sampled on a timer and at each call of the sampler `run` is given, and every
 * `collectEvery` calls, the memory still live after a full collection.
 */
async function memoryUse(run: (sample: () => Promise<void>) => Promise<void>, collectEvery = 32): Promise<MemoryUse> {
  const use: MemoryUse = {
    live: { before: await liveMemory(), peak: 0 },
    rss: { before: process.memoryUsage().rss, peak: 0 },
  };
  let calls = 0;
  const sampleRss = () => void (use.rss.peak = Math.max(use.rss.peak, process.memoryUsage().rss));
  const sample = async () => {
    sampleRss();
    if (++calls % collectEvery === 0) use.live.peak = Math.max(use.live.peak, await liveMemory());
  };
  const timer = setInterval(sampleRss, 5);
  try {
    await run(sample);
  } finally {
    clearInterval(timer);
    sampleRss();
  }
  return use;
}

/** With the files' bytes configured to go to `kind` (what `writeBlob` asks for). */
async function configuredFor<T>(kind: StorageKind, run: () => Promise<T>): Promise<T> {
  const saved = config.files.s3;
  config.files.s3 = kind === "s3" ? saved : undefined;
  try {
    expect(files.blobStore().kind).toBe(kind);
    return await run();
  } finally {
    config.files.s3 = saved;
  }
}

/** What each store holds beyond `has`: the FileChunk rows, or the bucket's objects. */
const held: Record<StorageKind, () => Promise<number>> = {
  database: () => db.fileChunk.count(),
  s3: () => s3!.objectCount(),
};

/** Growth of the live memory allowed while 25 MB go through, well under the 25 MB a store holding them would take. */
const LIVE_GROWTH_BOUND: Record<StorageKind, number> = {
  database: 8 * MB,
  // lib/files/s3-store.ts' Upload holds (queueSize + 1) parts of 5 MB: 15 MB (lib-storage's default queue, 25 MB).
  s3: 20 * MB,
};
/**
 * Growth of the RSS allowed, after a warm-up as large as what is measured: V8 collects the garbage when it sees fit
 * (measured here: up to 35 MB; without the warm-up, 160 MB for the database store).
 */
const RSS_GROWTH_BOUND = 64 * MB;

const kinds: StorageKind[] = testProvider === "sqlite" ? ["database", "s3"] : ["database"];

describe.each(kinds)("the %s blob store", (kind) => {
  let store: BlobStore;
  beforeAll(() => {
    store = files.storeOf(kind);
    expect(store.kind).toBe(kind);
  });

  it.each([
    ["0 bytes", 0],
    ["1 byte", 1],
    ["exactly one chunk (256 KB)", CHUNK],
    ["one chunk and a byte", CHUNK + 1],
    ["a few chunks in odd pieces", 3 * CHUNK + 12_345],
  ])("keeps %s as they were", async (_, size) => {
    const bytes = randomBytes(size);
    const blobId = randomUUID();
    expect(await store.has(blobId)).toBe(false);
    await store.put(blobId, pieces(bytes, 100_000));
    expect(await store.has(blobId)).toBe(true);
    expect((await read(store.get(blobId))).equals(bytes)).toBe(true);
    if (kind === "database")
      expect(await db.fileChunk.count({ where: { blobId } })).toBe(Math.max(1, Math.ceil(size / CHUNK)));
    else expect(await s3!.hasObject(`files/${blobId}`)).toBe(true);
    await store.remove([blobId]);
    expect(await store.has(blobId)).toBe(false);
  });

  it("streams 25 MB in and out without holding them", { timeout: 120_000 }, async () => {
    const total = 25 * MB;
    const blobId = randomUUID();
    // Warm up with as many bytes: a first large put grows V8's heap and fills Prisma's record of its last 100 debug
    // entries, where each chunk's query keeps its bytes (about 35 MB with 256 KB chunks, whatever the file's size).
    const warmUp = randomUUID();
    await store.put(warmUp, generated(total).source);

    let written!: ReturnType<typeof generated>;
    const putting = await memoryUse(async (sample) => {
      written = generated(total, sample);
      await store.put(blobId, written.source);
    });
    expect(written.produced()).toBe(total);

    const back = createHash("sha256");
    let size = 0;
    const getting = await memoryUse(async (sample) => {
      for await (const part of store.get(blobId)) {
        back.update(part);
        size += part.byteLength;
        await sample();
      }
    }, 8);
    expect(size).toBe(total);
    expect(back.digest("hex")).toBe(written.sha256());

    const growth = (use: MemoryUse, of: "rss" | "live") => use[of].peak - use[of].before;
    const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
    console.info(
      `${kind} store (${testProvider}), 25 MB through: RSS ${mb(putting.rss.before)} before, peak growth ` +
        `${mb(growth(putting, "rss"))} putting, ${mb(growth(getting, "rss"))} getting; live after a collection ` +
        `${mb(putting.live.before)} before, peak growth ${mb(growth(putting, "live"))} putting, ` +
        `${mb(growth(getting, "live"))} getting`,
    );
    expect(growth(putting, "live")).toBeLessThan(LIVE_GROWTH_BOUND[kind]);
    expect(growth(getting, "live")).toBeLessThan(LIVE_GROWTH_BOUND[kind]);
    expect(growth(putting, "rss")).toBeLessThan(RSS_GROWTH_BOUND);
    expect(growth(getting, "rss")).toBeLessThan(RSS_GROWTH_BOUND);

    await store.remove([blobId, warmUp]);
    expect(await store.has(blobId)).toBe(false);
  });

  it("refuses a write past its limit and keeps nothing of it", { timeout: 60_000 }, async () => {
    // Past one multipart part (5 MB) for S3 and many chunks for the database: some bytes were stored when it stops.
    const maxBytes = 6 * MB + 3;
    const before = await held[kind]();
    const blobIds: string[] = [];
    const put = store.put.bind(store);
    const spy = vi
      .spyOn(store, "put")
      .mockImplementation((blobId, source) => (blobIds.push(blobId), put(blobId, source)));
    let storedMidway: boolean | undefined;
    const source = generated(8 * MB, async () => {
      if (source.produced() === 4 * MB && kind === "database") storedMidway = await store.has(blobIds[0]);
    });
    try {
      await configuredFor(kind, async () => {
        await expect(
          files.writeBlob(source.source, maxBytes, (max) => `Files are kept up to ${max} bytes.`),
        ).rejects.toThrow(new files.FileTooLargeError(`Files are kept up to ${maxBytes} bytes.`));
      });
    } finally {
      spy.mockRestore();
    }
    expect(blobIds).toHaveLength(1);
    const [blobId] = blobIds;
    // It stopped at the limit, not at the end of the source.
    expect(source.produced()).toBeLessThan(8 * MB);
    if (kind === "database") expect(storedMidway).toBe(true);
    expect(await store.has(blobId)).toBe(false);
    expect(await held[kind]()).toBe(before);
    if (kind === "database") expect(await db.fileChunk.count({ where: { blobId } })).toBe(0);
    else expect(await s3!.hasObject(`files/${blobId}`)).toBe(false);
  });

  it("writes a blob within its limit, counted and hashed", async () => {
    const bytes = randomBytes(CHUNK + 7);
    const written = await configuredFor(kind, () =>
      files.writeBlob(pieces(bytes, 50_000), bytes.byteLength, () => "too large"),
    );
    expect(written).toEqual({
      blobId: expect.any(String),
      storage: kind,
      size: bytes.byteLength,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
    expect((await read(store.get(written.blobId))).equals(bytes)).toBe(true);
    await store.remove([written.blobId]);
  });

  it("removes several blobs at once, and blobs that are not there without an error", async () => {
    const before = await held[kind]();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    for (const blobId of [a, b, c]) await store.put(blobId, pieces(randomBytes(CHUNK + 10), 64 * KB));
    expect(await held[kind]()).toBeGreaterThan(before);

    await store.remove([a, randomUUID(), b]);
    expect(await store.has(a)).toBe(false);
    expect(await store.has(b)).toBe(false);
    expect(await store.has(c)).toBe(true);
    await store.remove([randomUUID()]);
    await store.remove([]);
    await store.remove([a, b]);
    expect(await store.has(c)).toBe(true);

    await store.remove([c]);
    expect(await held[kind]()).toBe(before);
    if (kind === "s3") for (const blobId of [a, b, c]) expect(await s3!.hasObject(`files/${blobId}`)).toBe(false);
  });

  it("copies a blob into one of its own: removing the original keeps the copy", async () => {
    const bytes = randomBytes(2 * CHUNK + 1);
    const [original, copy] = [randomUUID(), randomUUID()];
    await store.put(original, pieces(bytes, 64 * KB));
    const before = await held[kind]();

    await store.copy(original, copy);
    expect(await held[kind]()).toBe(kind === "database" ? before + 3 : before + 1);
    expect((await read(store.get(copy))).equals(bytes)).toBe(true);

    await store.remove([original]);
    expect(await store.has(original)).toBe(false);
    expect(await store.has(copy)).toBe(true);
    expect((await read(store.get(copy))).equals(bytes)).toBe(true);
    await store.remove([copy]);
    expect(await held[kind]()).toBe(before - (kind === "database" ? 3 : 1));
  });

  it("copies an empty blob", async () => {
    const [original, copy] = [randomUUID(), randomUUID()];
    await store.put(original, pieces(new Uint8Array(0), 1));
    await store.copy(original, copy);
    await store.remove([original]);
    expect(await store.has(copy)).toBe(true);
    expect((await read(store.get(copy))).byteLength).toBe(0);
    await store.remove([copy]);
  });
});

describe.skipIf(testProvider !== "sqlite")("the S3 server for tests", () => {
  it("is what TOOLSMITH_FILES_S3_URL names, and the configured store", () => {
    expect(config.files.s3).toMatchObject({ url: s3!.url, accessKeyId: "S3RVER", secretAccessKey: "S3RVER" });
    expect(s3!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/toolsmith-files$/);
    expect(files.blobStore().kind).toBe("s3");
  });
});
