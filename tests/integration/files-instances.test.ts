// Conversation files across instances: two instances of the app on one PostgreSQL database, as behind a load
// balancer, each with a workspace folder of its own, so that what one's tool reads the other's upload through the
// store (chunks in the database, or objects in an S3 bucket, tests/support/s3-server.ts): an upload on A read by a
// Python tool on B, whose file downloads from A; and a run on A killed mid-run (kill -9), taken over by B, whose next
// tool call still reads the upload and writes a file that downloads from B. (PostgreSQL only, as the other
// multi-instance tests; their lease and helpers come from tests/support/instances.ts.)
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationFile } from "@/lib/contract/responses";
import { Api, ofType, sendJson } from "../support/api";
import { listed, uploaded } from "../support/files";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { freshDatabaseUrl, prepareDatabase, sqlClient, testProvider } from "../support/database";
import { LEASE_MS, QUERY_TIMEOUT_MS, expectWholeLog, type TwoInstances } from "../support/instances";
import { ModelServer, type Reply } from "../support/model-server";
import { startS3Server, type S3Server } from "../support/s3-server";
import { readNotingFirst, readSse, type SseMessage } from "../support/sse";

/** A Python call's first import of pandas, on a busy 2-core machine, may take seconds: far from a test's limits. */
const SLOW_TEST_MS = 180_000;

const SALES = "region,amount\nnorth,10\nsouth,32\neast,7\nnorth,5\n";
/** What the tool writes from SALES: the amounts by region, sorted by region. */
const TOTALS = "region,amount\neast,7\nnorth,15\nsouth,32\n";

/** A registered Python tool that reads a file of /mnt/data with pandas and writes its totals by region to another. */
const PYTHON = [
  "import pandas as pd",
  "",
  "def run(inputs):",
  '    df = pd.read_csv("/mnt/data/" + inputs["source"])',
  '    totals = df.groupby("region", sort=True)["amount"].sum().reset_index()',
  '    totals.to_csv("/mnt/data/" + inputs["target"], index=False)',
  '    return {"rows": int(len(df)), "total": int(df["amount"].sum())}',
  "",
].join("\n");

const registerTotals = (name: string): Reply => ({
  toolCalls: [
    {
      name: "register_tool",
      args: {
        name,
        description: "Totals a CSV of the workspace by region into another.",
        parameters_schema: {
          type: "object",
          properties: { source: { type: "string" }, target: { type: "string" } },
          required: ["source", "target"],
        },
        python_code: PYTHON,
      },
    },
  ],
});
const callTotals = (name: string, target: string): Reply => ({
  toolCalls: [{ name, args: { source: "sales.csv", target } }],
});

const sendWithFiles = (client: Api, conversationId: string, content: string, files: string[]) =>
  sendJson(client, `/api/conversations/${conversationId}/messages`, "POST", { content, files });

/** A file's bytes as the instance `client` talks to serves them. */
async function downloaded(client: Api, file: ConversationFile): Promise<string> {
  const response = await client.fetch(file.url);
  expect(response.status, `GET ${file.url} on ${client.baseUrl}`).toBe(200);
  return response.text();
}

const model = new ModelServer();
beforeAll(() => model.start());
afterAll(() => model.stop());

/** Instances A and B, one person's client of each, their database, and each one's data folder. */
type Pair = TwoInstances & { databaseUrl: string; dataDirs: { a: string; b: string } };

/** Whether an instance's own copy of a conversation's workspace (under its data folder) holds `name`. */
const inWorkspace = (dataDir: string, conversationId: string, name: string) =>
  fs.existsSync(path.join(dataDir, "workspaces", conversationId, name));

/**
 * Instances A and B on a fresh PostgreSQL database, with `env()` (read once the describe's earlier hooks ran: a
 * bucket's settings), short leases as tests/support/instances.ts has them, and a data folder each: without one, the
 * two would share ./data/workspaces and a file would reach the other through the folder instead of the store.
 */
function twoInstances(env: () => Record<string, string> = () => ({})) {
  const two = {} as Pair;
  beforeAll(async () => {
    const databaseUrl = freshDatabaseUrl();
    await prepareDatabase(databaseUrl);
    const dataDirs = { a: tempDataDir(), b: tempDataDir() };
    const instance = (dataDir: string) =>
      scriptedApp(
        model.url,
        {
          TOOLSMITH_LEASE_MS: String(LEASE_MS),
          TOOLSMITH_DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
          TOOLSMITH_MAX_STEPS: "8",
          TOOLSMITH_PYTHON_WORKERS: "1",
          // A cold Python worker importing pandas on a loaded machine: well within.
          TOOLSMITH_TOOL_TIMEOUT_MS: "60000",
          TOOLSMITH_DATA_DIR: dataDir,
          ...env(),
        },
        databaseUrl,
      );
    const [a, b] = [instance(dataDirs.a), instance(dataDirs.b)];
    Object.assign(two, { a, b, databaseUrl, dataDirs });
    await Promise.all([a.start({ migrated: true }), b.start({ migrated: true })]);
    const onA = new Api(a.url);
    await onA.identity();
    Object.assign(two, { onA, onB: Object.assign(new Api(b.url), { cookie: onA.cookie }) });
  });
  afterAll(async () => {
    await Promise.all([two.a, two.b].map((server: AppServer | undefined) => server?.stop()));
  });
  return two;
}

/** The store's keys of the conversation's files, by path: FileChunk's blob ids, or the bucket's `files/<blobId>`. */
async function blobsOf(databaseUrl: string, conversationId: string) {
  const database = await sqlClient(databaseUrl);
  try {
    const rows = await database.query<{ path: string; blobId: string; storage: string }>(
      `SELECT "path", "blobId", "storage" FROM "ConversationFile" WHERE "conversationId" = ? ORDER BY "path"`,
      conversationId,
    );
    const chunks = async (blobId: string) =>
      Number(
        (await database.query<{ n: string }>(`SELECT count(*) AS "n" FROM "FileChunk" WHERE "blobId" = ?`, blobId))[0]
          .n,
      );
    return await Promise.all(rows.map(async (row) => ({ ...row, chunks: await chunks(row.blobId) })));
  } finally {
    await database.close();
  }
}

/**
 * The suite, for instances whose files are in `store()`'s back end: a Python tool on B reads A's upload; a run A
 * began is taken over by B after A dies, and B's call reads the upload and writes a file.
 */
function acrossInstances(two: Pair, bucket: () => S3Server | undefined) {
  /** Each of the conversation's files is in the store the instances are configured with, and only there. */
  async function expectStored(conversationId: string, paths: string[]) {
    const blobs = await blobsOf(two.databaseUrl, conversationId);
    expect(blobs.map((blob) => blob.path)).toEqual([...paths].sort());
    const s3 = bucket();
    for (const blob of blobs) {
      if (s3) {
        expect(blob, blob.path).toMatchObject({ storage: "s3", chunks: 0 });
        expect(await s3.hasObject(`files/${blob.blobId}`), blob.path).toBe(true);
      } else {
        expect(blob.storage, blob.path).toBe("database");
        expect(blob.chunks, blob.path).toBeGreaterThan(0);
      }
    }
  }

  it(
    "runs a Python tool on B over a file uploaded on A, and the file that tool wrote downloads from A",
    async () => {
      const tool = `totals_${bucket() ? "s3" : "db"}`;
      const prompt = `Total the sales uploaded on A, on B (${tool}).`;
      model.script(prompt, [registerTotals(tool), callTotals(tool, "out.csv"), { text: "Totalled." }]);
      const { id } = await two.onA.createConversation();
      const sales = (await uploaded(two.onA, id, [["sales.csv", SALES]]))[0];
      expect(sales).toMatchObject({ name: "sales.csv", path: "/sales.csv", size: SALES.length, source: "upload" });

      const events = await readSse(await sendWithFiles(two.onB, id, prompt, [sales.id]));
      expect(events.at(-1)!.data, JSON.stringify(ofType(events, "tool_result"))).toMatchObject({
        type: "run_finished",
        status: "completed",
      });
      const result = ofType(events, "tool_result").find((event) => event.name === tool)!;
      expect(result).toMatchObject({ ok: true, output: { rows: 4, total: 54 } });
      expect(result.files).toEqual([expect.objectContaining({ name: "out.csv", path: "/out.csv" })]);

      const onA = await listed(two.onA, id);
      const out = onA.find((file) => file.path === "/out.csv")!;
      expect(out).toMatchObject({ name: "out.csv", source: "tool", size: TOTALS.length, writtenBy: { tool } });
      expect(onA.find((file) => file.id === sales.id)).toMatchObject({ messageId: expect.any(String) });
      expect(await downloaded(two.onA, out)).toBe(TOTALS);
      expect(await downloaded(two.onB, sales)).toBe(SALES);
      // B's tool had the upload in B's own workspace folder; A, which ran no tool, has none: both went through the store.
      expect(inWorkspace(two.dataDirs.b, id, "sales.csv")).toBe(true);
      expect(inWorkspace(two.dataDirs.b, id, "out.csv")).toBe(true);
      expect(fs.existsSync(path.join(two.dataDirs.a, "workspaces", id))).toBe(false);
      await expectStored(id, ["out.csv", "sales.csv"]);
    },
    SLOW_TEST_MS,
  );

  it(
    "is taken over by B when A dies mid-run: B's next tool call reads the upload, and its file downloads from B",
    async () => {
      const tool = `totals_after_takeover_${bucket() ? "s3" : "db"}`;
      const prompt = `Total the sales on A, which dies after its first call (${tool}).`;
      // Step 2's first answer streams for long (A dies in it); asked again by B, which took the run over, at once.
      let askedForStep2 = 0;
      model.script(prompt, (step) => {
        if (step === 0) return registerTotals(tool);
        if (step === 1) return callTotals(tool, "first.csv");
        if (step === 2)
          return askedForStep2++ === 0
            ? { text: "slow ".repeat(400), chunkSize: 5, delayMs: 50 }
            : { text: "Again, on B.", ...callTotals(tool, "after.csv") };
        return { text: "Totalled twice." };
      });
      const { id } = await two.onA.createConversation();
      const sales = (await uploaded(two.onA, id, [["sales.csv", SALES]]))[0];
      void readSse(await sendWithFiles(two.onA, id, prompt, [sales.id])).catch(() => []);

      // On B, A's first call ended and the next step streams: A dies then.
      const untilStep2 = (message: SseMessage) => message.data.type === "text_delta";
      const seen = await readSse(await two.onB.events(id), untilStep2);
      expect(ofType(seen, "tool_result").find((event) => event.name === tool)).toMatchObject({
        ok: true,
        output: { rows: 4, total: 54 },
        files: [expect.objectContaining({ path: "/first.csv" })],
      });
      const follower = readNotingFirst(
        await two.onB.events(id),
        (message) => message.data.type === "run_resumed" || message.data.code === "instance_lost",
      );
      await two.a.kill();
      const killed = performance.now();
      const { events, markedAt } = await follower;

      expectWholeLog(events);
      // Taken over once the lease ran out (with a generous margin for a loaded machine).
      expect(markedAt - killed).toBeLessThan(LEASE_MS + 5_000);
      expect(ofType(events, "run_resumed")).toEqual([expect.objectContaining({ step: 2 })]);
      expect(ofType(events, "error")).toEqual([]);
      expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
      const resumedAt = events.findIndex((event) => event.data.type === "run_resumed");
      const afterTakeover = ofType(events.slice(resumedAt), "tool_result");
      expect(afterTakeover).toEqual([
        expect.objectContaining({
          name: tool,
          ok: true,
          output: { rows: 4, total: 54 },
          files: [expect.objectContaining({ path: "/after.csv" })],
        }),
      ]);
      // B asked for step 2 again, and made the call itself.
      expect(askedForStep2).toBe(2);

      const onB = await listed(two.onB, id);
      expect(onB.map((file) => file.path).sort()).toEqual(["/after.csv", "/first.csv", "/sales.csv"]);
      const after = onB.find((file) => file.path === "/after.csv")!;
      expect(after).toMatchObject({ source: "tool", writtenBy: { tool } });
      expect(await downloaded(two.onB, after)).toBe(TOTALS);
      // What A's call wrote before A died was stored back, and B serves it too.
      expect(
        await downloaded(
          two.onB,
          onB.find((file) => file.path === "/first.csv")!,
        ),
      ).toBe(TOTALS);
      await expectStored(id, ["after.csv", "first.csv", "sales.csv"]);
      // B fetched into its own folder what A's workspace had: the upload, and the file A's call wrote.
      for (const name of ["sales.csv", "first.csv", "after.csv"])
        expect(inWorkspace(two.dataDirs.b, id, name), name).toBe(true);
      expect(inWorkspace(two.dataDirs.a, id, "after.csv")).toBe(false);
    },
    SLOW_TEST_MS,
  );
}

describe.runIf(testProvider === "postgresql")("files across two instances on one PostgreSQL", () => {
  describe("with the bytes in the database", () => {
    const two = twoInstances();
    acrossInstances(two, () => undefined);
  });

  describe("with the bytes in an S3 bucket both instances use", () => {
    let s3: S3Server | undefined;
    beforeAll(async () => {
      s3 = await startS3Server();
    });
    // Registered after the bucket's hook, so that the instances start with its settings; stopped before it closes.
    afterAll(async () => s3?.close());
    const two = twoInstances(() => s3!.env);
    acrossInstances(two, () => s3);
  });
});
