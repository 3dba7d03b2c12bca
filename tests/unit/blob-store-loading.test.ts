import { describe, expect, it, vi } from "vitest";

const loaded = vi.hoisted(() => ({ s3: 0, asked: [] as string[] }));
vi.mock("@/lib/files/s3-store", () => {
  loaded.s3++;
  return {
    S3BlobStore: class {
      readonly kind = "s3";
      has = async (blobId: string) => (loaded.asked.push(blobId), true);
    },
  };
});
vi.mock("@/lib/settings/config", () => ({ config: { files: { s3: { url: "http://127.0.0.1:9/bucket" } } } }));
vi.mock("@/lib/files/database-store", () => ({ DatabaseBlobStore: class {} }));
const { storeOf } = await import("@/lib/files/store");

describe("the blob stores' modules", () => {
  it("load the S3 client only when a file's bytes go to or come from a bucket", async () => {
    storeOf("database");
    const bucket = storeOf("s3");
    expect(bucket.kind).toBe("s3");
    expect(loaded.s3).toBe(0);
    expect(await bucket.has("blob-1")).toBe(true);
    expect(await bucket.has("blob-2")).toBe(true);
    expect(loaded).toEqual({ s3: 1, asked: ["blob-1", "blob-2"] });
  });
});
