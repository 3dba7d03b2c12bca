// A local S3-compatible server for tests: s3rver (npm) on loopback, a free port, a fresh directory and one bucket.
// What it holds is asked of it through the S3 API, so that a test sees what a deletion really left.
import fs from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { HeadObjectCommand, ListObjectsV2Command, NotFound, S3Client } from "@aws-sdk/client-s3";

/** The part of s3rver's API used here (the package ships no types). */
interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rver = createRequire(import.meta.url)("s3rver") as new (options: S3rverOptions) => S3rverInstance;

export interface S3Server {
  /** The endpoint and the bucket, path-style, as TOOLSMITH_FILES_S3_URL takes it: http://127.0.0.1:<port>/<bucket>. */
  url: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The TOOLSMITH_FILES_S3_* settings that point the app at this bucket (set them before importing lib modules). */
  env: Record<string, string>;
  /** The objects in the bucket (every key, listed page by page). */
  objectKeys(): Promise<string[]>;
  objectCount(): Promise<number>;
  /** Whether the bucket holds an object under `key` (the store's keys are `files/<blobId>`). */
  hasObject(key: string): Promise<boolean>;
  /** Stop the server and delete its directory. */
  close(): Promise<void>;
}

/** Start s3rver on 127.0.0.1 with a bucket (`toolsmith-files` unless named); any credentials pass. */
export async function startS3Server({ bucket = "toolsmith-files" } = {}): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run().catch((error: unknown) => {
    fs.rmSync(directory, { recursive: true, force: true });
    throw error;
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = "S3RVER";
  const secretAccessKey = "S3RVER";
  const region = "us-east-1";
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });

  async function objectKeys(): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key!));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  }

  return {
    url: `${endpoint}/${bucket}`,
    bucket,
    accessKeyId,
    secretAccessKey,
    region,
    env: {
      TOOLSMITH_FILES_S3_URL: `${endpoint}/${bucket}`,
      TOOLSMITH_FILES_S3_ACCESS_KEY_ID: accessKeyId,
      TOOLSMITH_FILES_S3_SECRET_ACCESS_KEY: secretAccessKey,
      TOOLSMITH_FILES_S3_REGION: region,
    },
    objectKeys,
    objectCount: async () => (await objectKeys()).length,
    async hasObject(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (error) {
        if (error instanceof NotFound || (error as { name?: string }).name === "NotFound") return false;
        throw error;
      }
    },
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
