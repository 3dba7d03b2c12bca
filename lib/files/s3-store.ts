import { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { BlobStore } from "./store";

export interface S3Settings {
  /** The endpoint and the bucket, path-style: http://127.0.0.1:9000/toolsmith-files. */
  url: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  region: string;
}

/** DeleteObjects takes up to this many keys a request. */
const DELETE_BATCH = 1000;

/** Blobs as objects of one bucket, `files/<blobId>`, streamed both ways (a multipart upload for large ones). */
export class S3BlobStore implements BlobStore {
  readonly kind = "s3";
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Settings) {
    const url = new URL(settings.url);
    this.bucket = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ""));
    if (!this.bucket || this.bucket.includes("/"))
      throw new Error(`TOOLSMITH_FILES_S3_URL must name one bucket after the endpoint, as in http://host:9000/bucket.`);
    this.client = new S3Client({
      endpoint: url.origin,
      region: settings.region,
      forcePathStyle: true,
      ...(settings.accessKeyId &&
        settings.secretAccessKey && {
          credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
        }),
    });
  }

  private key = (blobId: string) => `files/${blobId}`;

  async put(blobId: string, source: AsyncIterable<Uint8Array>): Promise<void> {
    let sourceFailed: { error: unknown } | undefined;
    async function* read() {
      try {
        yield* source;
      } catch (error) {
        sourceFailed = { error };
        throw error;
      }
    }
    try {
      await new Upload({
        client: this.client,
        // An upload holds (queueSize + 1) parts of 5 MB at once: the default of 4 parts in flight held a whole 25 MB file.
        queueSize: 2,
        params: { Bucket: this.bucket, Key: this.key(blobId), Body: Readable.from(read()) },
      }).done();
    } catch (error) {
      // The source's failure (a file too large) is the one to report, also when aborting the multipart upload it began
      // failed in turn: Upload then rejects with the abort's error instead.
      throw sourceFailed ? sourceFailed.error : error;
    }
  }

  async *get(blobId: string): AsyncIterable<Uint8Array> {
    const { Body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(blobId) }));
    if (!Body) return;
    yield* Body as Readable;
  }

  async remove(blobIds: string[]): Promise<void> {
    for (let start = 0; start < blobIds.length; start += DELETE_BATCH) {
      const keys = blobIds.slice(start, start + DELETE_BATCH).map((blobId) => ({ Key: this.key(blobId) }));
      const { Errors } = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
      );
      const failed = (Errors ?? []).filter((error) => error.Code !== "NoSuchKey");
      if (failed.length > 0) throw new Error(`The bucket kept ${failed.length} objects: ${failed[0].Message}`);
    }
  }

  async copy(fromBlobId: string, toBlobId: string): Promise<void> {
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: this.key(toBlobId),
        CopySource: `${this.bucket}/${this.key(fromBlobId)}`,
      }),
    );
  }

  async has(blobId: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(blobId) }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === "NotFound") return false;
      throw error;
    }
  }
}
