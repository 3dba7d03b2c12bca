// What becomes of a conversation's files' bytes as people delete, fork, export and share: deleting a file, its
// conversation or the account deletes its bytes from the store itself (FileChunk's rows in the database, or the
// objects of the S3 bucket, tests/support/s3-server.ts); a fork keeps the files as copies of its own; the export
// lists them; a members-only link refuses them to a stranger as it refuses the conversation. Each store has its suite,
// on SQLite and on PostgreSQL.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedSignedInBrowser } from "../support/accounts";
import type { ConversationFile } from "@/lib/contract/responses";
import { Api, expectJson, sendJson, signedInApi } from "../support/api";
import { uploaded } from "../support/files";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, sqlClient } from "../support/database";
import { ModelServer } from "../support/model-server";
import { startS3Server, type S3Server } from "../support/s3-server";
import { readSse } from "../support/sse";

const KB = 1024;
/** Bytes per FileChunk row (lib/files/database-store.ts). */
const CHUNK_BYTES = 256 * KB;

const SALES = "region,amount\nnorth,10\nsouth,32\neast,7\n";
const NOTES = "Quarterly notes: north leads.\n";

const byPath = (files: ConversationFile[]) => [...files].sort((a, b) => a.path.localeCompare(b.path));

const listed = async (client: Api, conversationId: string) =>
  (
    (await expectJson(await client.fetch(`/api/conversations/${conversationId}/files`), 200)) as {
      files: ConversationFile[];
    }
  ).files;

/** Bytes compared by their SHA-256: toEqual on two 600 KB buffers takes the test's event loop seconds. */
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** The SHA-256 of what `url` serves `client`. */
async function digestOf(client: Api, url: string): Promise<string> {
  const response = await client.fetch(url);
  expect(response.status, `GET ${url}`).toBe(200);
  return sha256(new Uint8Array(await response.arrayBuffer()));
}

const model = new ModelServer();
beforeAll(() => model.start());
afterAll(() => model.stop());

/**
 * The suite for one store: an app on a fresh database of the provider under test, with its files' bytes in the
 * database, or (`s3`) in a bucket of its own.
 */
function lifecycle(kind: "database" | "s3") {
  const databaseUrl = freshDatabaseUrl();
  let app: AppServer;
  let s3: S3Server | undefined;

  beforeAll(async () => {
    if (kind === "s3") s3 = await startS3Server();
    app = scriptedApp(
      model.url,
      { TOOLSMITH_AUTH: "optional", TOOLSMITH_DATA_DIR: tempDataDir(), ...s3?.env },
      databaseUrl,
    );
    await app.start();
  });
  afterAll(async () => {
    (await import("node:fs")).writeFileSync(
      `/tmp/lc-${kind}-${process.env.TEST_DATABASE ?? "sqlite"}.log`,
      app?.output ?? "",
    );
    await app?.stop();
    await s3?.close();
  });

  /** One query on the test's database, through a connection of its own. */
  async function query<Row>(sql: string, ...params: unknown[]): Promise<Row[]> {
    const database = await sqlClient(databaseUrl);
    try {
      return await database.query<Row>(sql, ...params);
    } finally {
      await database.close();
    }
  }

  const count = async (sql: string, ...params: unknown[]) => Number((await query<{ n: unknown }>(sql, ...params))[0].n);
  const chunkRows = (blobId?: string) =>
    blobId === undefined
      ? count(`SELECT count(*) AS "n" FROM "FileChunk"`)
      : count(`SELECT count(*) AS "n" FROM "FileChunk" WHERE "blobId" = ?`, blobId);

  /** What the store holds in all: FileChunk's rows, or the bucket's objects (and then no chunk at all). */
  async function storeSize(): Promise<number> {
    if (!s3) return chunkRows();
    expect(await chunkRows()).toBe(0);
    return s3.objectCount();
  }

  /** The rows (FileChunk) or objects (the bucket) of a file's bytes, one blob's. */
  const pieces = async (blobId: string) => (s3 ? Number(await s3.hasObject(`files/${blobId}`)) : chunkRows(blobId));

  /** How many rows or objects a file of `size` bytes takes in the store; and files listed, all together. */
  const piecesFor = (size: number) => (s3 ? 1 : Math.max(1, Math.ceil(size / CHUNK_BYTES)));
  const piecesOf = (files: ConversationFile[]) => files.reduce((sum, file) => sum + piecesFor(file.size), 0);

  /** The blob of each file, by file id, from the database (a deleted file's row is gone, its blob id known from before). */
  async function blobOf(fileId: string): Promise<string> {
    const [row] = await query<{ blobId: string; storage: string }>(
      `SELECT "blobId", "storage" FROM "ConversationFile" WHERE "id" = ?`,
      fileId,
    );
    expect(row, `the row of file ${fileId}`).toBeDefined();
    expect(row.storage).toBe(kind);
    return row.blobId;
  }

  /** A conversation with an upload of several chunks and a small one; their blobs and the pieces each takes. */
  async function conversationWithUploads(client: Api) {
    const { id } = await client.createConversation();
    const big = randomBytes(600 * KB);
    const files = await uploaded(client, id, [
      ["big.bin", big],
      ["notes.txt", NOTES],
    ]);
    const blobs = await Promise.all(files.map((file) => blobOf(file.id)));
    for (const [index, blob] of blobs.entries()) expect(await pieces(blob)).toBe(piecesFor(files[index].size));
    return { id, files, blobs, big, total: piecesFor(big.length) + piecesFor(NOTES.length) };
  }

  describe("deleting", () => {
    it("a file deletes its bytes, and only its own", async () => {
      const api = new Api(app.url);
      const before = await storeSize();
      const { files, blobs, big, total } = await conversationWithUploads(api);
      expect(await storeSize()).toBe(before + total);
      expect(await digestOf(api, files[0].url)).toBe(sha256(big));

      expect((await api.fetch(files[0].url, { method: "DELETE" })).status).toBe(204);
      expect(await pieces(blobs[0])).toBe(0);
      expect(await storeSize()).toBe(before + piecesFor(NOTES.length));
      expect((await api.fetch(files[0].url)).status).toBe(404);
      expect(await digestOf(api, files[1].url)).toBe(sha256(NOTES));
    });

    it("a conversation deletes the bytes of its files, uploaded and written by a tool", async () => {
      const api = new Api(app.url);
      const before = await storeSize();
      const { id, files, blobs, total } = await conversationWithUploads(api);
      const prompt = `Write a summary beside the uploads (${kind}).`;
      model.script(prompt, [
        { toolCalls: [{ name: "write_file", args: { path: "/out/summary.txt", content: "north leads" } }] },
        { text: "Written." },
      ]);
      const events = await readSse(
        await sendJson(api, `/api/conversations/${id}/messages`, "POST", { content: prompt, files: [files[1].id] }),
      );
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      const written = (await listed(api, id)).find((file) => file.path === "/out/summary.txt")!;
      expect(written).toMatchObject({ source: "tool", size: "north leads".length });
      const writtenBlob = await blobOf(written.id);
      expect(await storeSize()).toBe(before + total + piecesFor(written.size));

      // Another identity's file, which stays.
      const other = new Api(app.url);
      const kept = await conversationWithUploads(other);

      expect((await api.fetch(`/api/conversations/${id}`, { method: "DELETE" })).status).toBe(204);
      for (const blob of [...blobs, writtenBlob]) expect(await pieces(blob)).toBe(0);
      expect(await count(`SELECT count(*) AS "n" FROM "ConversationFile" WHERE "conversationId" = ?`, id)).toBe(0);
      expect(await storeSize()).toBe(before + kept.total);
      for (const file of [...files, written]) expect((await api.fetch(file.url)).status).toBe(404);
      expect(await digestOf(other, kept.files[0].url)).toBe(sha256(kept.big));
    });

    it("the account deletes the bytes of every file of its conversations", async () => {
      const email = `files-${kind}@example.com`;
      const { browser, accountId } = await signedInApi(databaseUrl, app.url, email);
      const before = await storeSize();
      const first = await conversationWithUploads(browser);
      const second = await conversationWithUploads(browser);
      const bystander = await conversationWithUploads(new Api(app.url));
      expect(await storeSize()).toBe(before + first.total + second.total + bystander.total);
      expect(await count(`SELECT count(*) AS "n" FROM "ConversationFile" WHERE "ownerId" = ?`, accountId)).toBe(4);

      expect((await sendJson(browser, "/api/account", "DELETE", { confirm: email })).status).toBe(204);
      for (const blob of [...first.blobs, ...second.blobs]) expect(await pieces(blob)).toBe(0);
      expect(await count(`SELECT count(*) AS "n" FROM "ConversationFile" WHERE "ownerId" = ?`, accountId)).toBe(0);
      expect(await storeSize()).toBe(before + bystander.total);
      for (const blob of bystander.blobs) expect(await pieces(blob)).toBeGreaterThan(0);
    });
  });

  describe("a fork", () => {
    it("keeps the files: the same names and bytes under new ids, which outlive the source's", async () => {
      const api = new Api(app.url);
      const { id, files, blobs, big } = await conversationWithUploads(api);
      const [sales] = await uploaded(api, id, [["sales.csv", SALES]]);
      const prompt = `Read the sales, to fork (${kind}).`;
      model.script(prompt, [{ text: "Read." }]);
      const events = await readSse(
        await sendJson(api, `/api/conversations/${id}/messages`, "POST", { content: prompt, files: [sales.id] }),
      );
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      const source = byPath(await listed(api, id));

      const before = await storeSize();
      const forked = await expectJson(await sendJson(api, `/api/conversations/${id}/fork`, "POST"), 201);
      const copies = byPath(await listed(api, forked.id));
      const shape = (file: ConversationFile) => ({
        name: file.name,
        path: file.path,
        size: file.size,
        mimeType: file.mimeType,
      });
      expect(copies.map(shape)).toEqual(source.map(shape));
      expect(copies.map((file) => file.id).filter((fileId) => source.some((file) => file.id === fileId))).toEqual([]);
      for (const [index, copy] of copies.entries())
        expect(await digestOf(api, copy.url), copy.name).toBe(await digestOf(api, source[index].url));
      // Copies of the bytes, in the same store.
      const copyBlobs = await Promise.all(copies.map((file) => blobOf(file.id)));
      expect(copyBlobs.filter((blob) => blobs.includes(blob))).toEqual([]);
      expect(await storeSize()).toBe(before + piecesOf(source));
      // The upload attached to the message is attached to the fork's copy of the message.
      const trace = await api.conversation(forked.id);
      const forkedMessage = trace.messages.find((message: { role: string }) => message.role === "user");
      expect(copies.find((file) => file.name === "sales.csv")!.messageId).toBe(forkedMessage.id);
      expect(copies.filter((file) => file.name !== "sales.csv").map((file) => file.messageId)).toEqual([null, null]);

      // Deleting the source's file, then the source, leaves the fork's.
      expect((await api.fetch(files[0].url, { method: "DELETE" })).status).toBe(204);
      expect(await pieces(blobs[0])).toBe(0);
      expect(await digestOf(api, copies[0].url)).toBe(sha256(big));
      expect((await api.fetch(`/api/conversations/${id}`, { method: "DELETE" })).status).toBe(204);
      expect(byPath(await listed(api, forked.id)).map(shape)).toEqual(copies.map(shape));
      const [bigCopy, notesCopy, salesCopy] = copies;
      expect(await digestOf(api, bigCopy.url)).toBe(sha256(big));
      expect(await digestOf(api, notesCopy.url)).toBe(sha256(NOTES));
      expect(await digestOf(api, salesCopy.url)).toBe(sha256(SALES));
      for (const [index, blob] of copyBlobs.entries()) expect(await pieces(blob)).toBe(piecesFor(copies[index].size));
    });
  });

  describe("the export", () => {
    it("lists the conversation's files, in JSON and in Markdown", async () => {
      const api = new Api(app.url);
      const { id } = await api.createConversation();
      const [sales, notes] = await uploaded(api, id, [
        ["sales.csv", SALES],
        ["notes.txt", NOTES],
      ]);
      const prompt = `Read the attached sales, to export (${kind}).`;
      model.script(prompt, [{ text: "Exported soon." }]);
      await readSse(
        await sendJson(api, `/api/conversations/${id}/messages`, "POST", { content: prompt, files: [sales.id] }),
      );

      const json = await expectJson(await api.fetch(`/api/conversations/${id}/export?format=json`), 200);
      expect(json.files).toEqual([
        expect.objectContaining({ id: sales.id, name: "sales.csv", size: SALES.length, mimeType: "text/csv" }),
        expect.objectContaining({ id: notes.id, name: "notes.txt", size: NOTES.length }),
      ]);
      const markdown = await api.fetch(`/api/conversations/${id}/export?format=md`);
      expect(markdown.status).toBe(200);
      const text = await markdown.text();
      expect(text).toContain("sales.csv");
      expect(text).toContain("notes.txt");
    });
  });

  describe("a members-only share link", () => {
    it("refuses the files to a visitor who is not signed in (401), as it refuses the conversation; a member has them", async () => {
      const owner = new Api(app.url);
      const { id } = await owner.createConversation();
      const [notes] = await uploaded(owner, id, [["notes.txt", NOTES]]);
      const share = await expectJson(
        await sendJson(owner, `/api/conversations/${id}/share`, "POST", { visibility: "members" }),
        201,
      );
      expect(share).toMatchObject({ visibility: "members" });
      const trace = `/api/share/${share.token}`;
      const file = `/api/share/${share.token}/files/${notes.id}`;

      const anonymous = new Api(app.url);
      await anonymous.identity();
      for (const headers of [{}, { cookie: anonymous.cookie! }] as Record<string, string>[]) {
        for (const path of [trace, file]) {
          const response = await fetch(`${app.url}${path}`, { headers });
          const body = await expectJson(response, 401);
          expect(body.error.code, path).toBe("sign_in_required");
          expect(JSON.stringify(body), path).not.toContain("north leads");
        }
      }

      const member = await seedSignedInBrowser(databaseUrl, app.url, `member-${kind}@example.com`);
      const shown = await expectJson(await fetch(`${app.url}${trace}`, { headers: { cookie: member.cookie } }), 200);
      expect(shown.files).toEqual([expect.objectContaining({ id: notes.id, url: file })]);
      const download = await fetch(`${app.url}${file}`, { headers: { cookie: member.cookie } });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(NOTES);
    });
  });
}

describe("conversation files' bytes in the database (FileChunk)", () => lifecycle("database"));
describe("conversation files' bytes in an S3 bucket", () => lifecycle("s3"));
