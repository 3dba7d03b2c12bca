import { randomBytes } from "node:crypto";
import os from "node:os";
import { Api, ofType } from "../tests/support/api";
import { scriptedApp, type AppServer } from "../tests/support/app-server";
import { freshPostgresUrl, freshSqliteUrl } from "../tests/support/database";
import { ModelServer } from "../tests/support/model-server";
import startPostgres from "../tests/support/postgres";
import { readSse } from "../tests/support/sse";
import { startS3Server } from "../tests/support/s3-server";
import { sendWithFiles, uploaded } from "../tests/support/files";
import { printTable, pythonReady, summarize } from "./stats";

/*
 * Conversation files through a production server, on SQLite and on PostgreSQL, their bytes in the database (chunks)
 * and in an S3 bucket (s3rver on loopback, when tests/support/s3-server.ts is there):
 *   1. an upload of 25 MB, its throughput and the server's resident memory meanwhile (streamed: it stays flat);
 *   2. what attaching a 10 MB CSV to a message adds before the run's first model request;
 *   3. a Python tool reading a 10 MB CSV from /mnt/data (the conversation's files, copied into the jail) against
 *      the same CSV the code writes into its own /tmp first.
 * BENCH_FILES_QUICK=1 takes fewer samples of each.
 */

const MB = 1024 * 1024;
const QUICK = process.env.BENCH_FILES_QUICK === "1";
const UPLOAD_BYTES = 25 * MB;
const UPLOADS = QUICK ? 3 : 5;
const CSV_BYTES = 10 * MB;
const LATENCY_SAMPLES = QUICK ? 5 : 10;
const PYTHON_SAMPLES = QUICK ? 3 : 5;
/** How often the server's resident memory is read during the uploads. */
const RSS_EVERY_MS = 20;
/** The added latency the attachment may cost before the first model request. */
const ATTACHMENT_BUDGET_MS = 200;
const TOOL = "read_bench_csv";

/** The CSV's rows: the same in Node (uploaded) and in the tool's numpy (written to /tmp), byte for byte. */
const REGIONS = ["north", "south", "east", "west"];
const csvRow = (i: number) => `${i},${REGIONS[i % 4]},${(i * 7919) % 100003},${(i * 31) % 1000}\n`;

function benchCsv(): { text: string; rows: number; amountSum: number } {
  const lines = ["id,region,amount,qty\n"];
  let size = lines[0].length;
  let amountSum = 0;
  let rows = 0;
  while (size < CSV_BYTES) {
    const line = csvRow(rows);
    lines.push(line);
    size += line.length;
    amountSum += (rows * 7919) % 100003;
    rows++;
  }
  return { text: lines.join(""), rows, amountSum };
}

/**
 * The tool: read the CSV from /mnt/data, or write the same one into the jail's /tmp with numpy and pandas, then read
 * that. The policy lets a tool import neither time nor os: the clock is datetime's (microseconds).
 */
const PYTHON_CODE = `import datetime

import numpy as np
import pandas as pd

REGIONS = np.array(["north", "south", "east", "west"])


def elapsed_ms(started):
    return (datetime.datetime.now() - started).total_seconds() * 1000


def run(inputs):
    write_ms = 0.0
    if inputs["source"] == "mnt":
        path = "/mnt/data/" + inputs["name"]
    else:
        path = "/tmp/generated.csv"
        started = datetime.datetime.now()
        i = np.arange(inputs["rows"], dtype=np.int64)
        frame = pd.DataFrame({"id": i, "region": REGIONS[i % 4], "amount": (i * 7919) % 100003, "qty": (i * 31) % 1000})
        frame.to_csv(path, index=False)
        del frame
        write_ms = elapsed_ms(started)
    started = datetime.datetime.now()
    df = pd.read_csv(path)
    read_ms = elapsed_ms(started)
    return {"readMs": read_ms, "writeMs": write_ms, "rows": len(df), "amountSum": int(df["amount"].sum())}
`;
const TOOL_SCHEMA = {
  type: "object",
  properties: {
    source: { type: "string", enum: ["mnt", "tmp"] },
    name: { type: "string" },
    rows: { type: "integer" },
  },
  required: ["source", "name", "rows"],
};

interface Setup {
  provider: "SQLite" | "PostgreSQL";
  store: "database" | "S3 (s3rver)";
}

interface UploadFigures {
  mbPerSecond: number[];
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  /** The peak during each upload, in order: a file held whole would lift each by its size. */
  peaks: number[];
  /** The server's own report (SIGUSR2, with --expose-gc: after a full collection) before the uploads and after. */
  collected: { before: { rss: number; heapUsed: number }; after: { rss: number; heapUsed: number } };
  samples: number;
  sampledMs: number;
}

interface LatencyFigures {
  plain: number[];
  attached: number[];
  /** The size of the first model request's JSON, without and with the attachment. */
  requestChars: [number, number];
}

interface PythonCall {
  durationMs: number;
  readMs: number;
  writeMs: number;
}

interface Figures {
  setup: Setup;
  uploads: UploadFigures;
  latency: LatencyFigures;
  /** Or why the calls failed. */
  python: { mnt: PythonCall[]; tmp: PythonCall[] } | string;
}

export async function benchFiles(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const stopPostgres = await startPostgres();
  const bucket = await startS3Server();
  const csv = benchCsv();
  const results: Figures[] = [];
  const started = performance.now();
  try {
    for (const provider of ["SQLite", "PostgreSQL"] as const) {
      for (const store of ["database", ...(bucket ? ["S3 (s3rver)" as const] : [])] as const) {
        const setup: Setup = { provider, store };
        const databaseUrl = provider === "SQLite" ? freshSqliteUrl() : freshPostgresUrl();
        const app = scriptedApp(
          model.url,
          {
            TOOLSMITH_SECRET: "bench-secret",
            // So that the server's SIGUSR2 report is of the memory after a full collection (AppServer.stats).
            NODE_OPTIONS: "--expose-gc",
            TOOLSMITH_PYTHON_WARM: "1",
            // Room for every sample's file in one conversation and identity, and no upload rate limit in the way.
            TOOLSMITH_FILE_MAX_MB: "64",
            TOOLSMITH_CONVERSATION_FILES_MAX_MB: "100000",
            TOOLSMITH_IDENTITY_FILES_MAX_MB: "1000000",
            TOOLSMITH_RATE_UPLOADS_PER_MINUTE: "100000",
            ...(store === "database" ? {} : bucket!.env),
          },
          databaseUrl,
        );
        await app.start();
        try {
          await pythonReady(app);
          const label = `${provider}/${store}`;
          const uploads = await uploadFigures(app);
          const latency = await latencyFigures(app, model, csv.text, label);
          // A failing Python call is a figure too (its error in the table); the other parts stand.
          const python = await pythonFigures(app, model, csv, label).catch((error: Error) => error.message);
          results.push({ setup, uploads, latency, python });
        } catch (error) {
          console.error(`${provider}, ${store} failed; the server said:\n${app.output.slice(-3000)}`);
          throw error;
        } finally {
          await app.stop();
        }
      }
    }
  } finally {
    await bucket?.close();
    await stopPostgres();
    await model.stop();
  }
  print(results, csv, bucket !== undefined, performance.now() - started);
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

/** One file uploaded, checked to be stored whole. */
async function upload(api: Api, conversationId: string, name: string, file: Blob) {
  const [stored] = await uploaded(api, conversationId, [[name, file]]);
  if (stored.size !== file.size) throw new Error(`upload of ${name}: stored ${stored.size} bytes of ${file.size}`);
  return stored;
}

/** Figure 1: 25 MB of random bytes uploaded, one after another, the server's RSS read every 20 ms meanwhile. */
async function uploadFigures(app: AppServer): Promise<UploadFigures> {
  const api = new Api(app.url);
  const { id } = await api.createConversation();
  // The route's code loaded and run once: the memory of a first request is not the upload's.
  await upload(api, id, "warm-up.bin", new Blob([randomBytes(64 * 1024)]));
  const file = new Blob([randomBytes(UPLOAD_BYTES)]);
  const before = await app.stats();
  const rssBefore = app.residentBytes();
  let peak = rssBefore;
  let samples = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, app.residentBytes());
    samples++;
  }, RSS_EVERY_MS);
  const sampling = performance.now();
  const mbPerSecond: number[] = [];
  const peaks: number[] = [];
  try {
    for (let i = 0; i < UPLOADS; i++) {
      peak = app.residentBytes();
      const started = performance.now();
      await upload(api, id, `random-${i}.bin`, file);
      mbPerSecond.push(UPLOAD_BYTES / MB / ((performance.now() - started) / 1000));
      peaks.push(Math.max(peak, app.residentBytes()));
    }
  } finally {
    clearInterval(sampler);
  }
  const sampledMs = performance.now() - sampling;
  const rssAfter = app.residentBytes();
  const after = await app.stats();
  const collected = {
    before: { rss: before.rss, heapUsed: before.heapUsed },
    after: { rss: after.rss, heapUsed: after.heapUsed },
  };
  return { mbPerSecond, rssBefore, rssPeak: Math.max(...peaks), rssAfter, peaks, collected, samples, sampledMs };
}

/**
 * Figure 2: from sending a message to its run's first model request (as the scripted model server hands it to its
 * scenario, the request's body read), in a new conversation each: with a 10 MB CSV uploaded just before and
 * attached, and without; alternately.
 */
async function latencyFigures(app: AppServer, model: ModelServer, csv: string, label: string): Promise<LatencyFigures> {
  const api = new Api(app.url);
  await api.identity();
  const file = new Blob([csv], { type: "text/csv" });
  const figures: LatencyFigures = { plain: [], attached: [], requestChars: [0, 0] };
  // One of each first, not counted.
  for (let i = -1; i < LATENCY_SAMPLES; i++) {
    for (const attach of [false, true]) {
      const prompt = `Files bench ${label}: ${attach ? "with" : "without"} the CSV, ${i}.`;
      let arrived = Number.NaN;
      model.script(prompt, () => {
        if (Number.isNaN(arrived)) arrived = performance.now();
        return { text: "Noted." };
      });
      const { id } = await api.createConversation();
      const files = attach ? [(await upload(api, id, "sales.csv", file)).id] : [];
      const sent = performance.now();
      const response = await api.fetch(`/api/conversations/${id}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ content: prompt, files }),
      });
      const events = await readSse(response);
      const finished = events.at(-1)?.data;
      if (finished?.type !== "run_finished" || finished.status !== "completed" || Number.isNaN(arrived))
        throw new Error(`${prompt}: the run did not complete: ${JSON.stringify(events.slice(-3))}`);
      if (i < 0) continue;
      (attach ? figures.attached : figures.plain).push(arrived - sent);
      figures.requestChars[attach ? 1 : 0] = JSON.stringify(model.requestsFor(prompt)[0]).length;
    }
  }
  return figures;
}

/** Figure 3: the tool registered in one run, then called once a message, reading /mnt/data's CSV or /tmp's. */
async function pythonFigures(
  app: AppServer,
  model: ModelServer,
  csv: { text: string; rows: number; amountSum: number },
  label: string,
): Promise<{ mnt: PythonCall[]; tmp: PythonCall[] }> {
  const api = new Api(app.url);
  const { id } = await api.createConversation();
  const stored = await upload(api, id, "bench.csv", new Blob([csv.text], { type: "text/csv" }));
  const register = `Files bench ${label}: register the reader.`;
  model.script(register, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: TOOL,
            description: "Read the bench CSV with pandas.",
            parameters_schema: TOOL_SCHEMA,
            python_code: PYTHON_CODE,
          },
        },
      ],
    },
    { text: "Registered." },
  ]);
  const registered = await run(api, id, register, [stored.id]);
  const registration = ofType(registered, "tool_result")[0];
  if (!registration?.ok) throw new Error(`registration failed: ${JSON.stringify(registration)}`);

  const figures: { mnt: PythonCall[]; tmp: PythonCall[] } = { mnt: [], tmp: [] };
  // One of each first, not counted.
  for (let i = -1; i < PYTHON_SAMPLES; i++) {
    for (const source of ["mnt", "tmp"] as const) {
      const prompt = `Files bench ${label}: read the CSV from ${source}, ${i}.`;
      model.script(prompt, [
        { toolCalls: [{ name: TOOL, args: { source, name: stored.name, rows: csv.rows } }] },
        { text: "Read." },
      ]);
      const result = ofType(await run(api, id, prompt), "tool_result").find((event) => event.name === TOOL);
      const output = result?.output as { readMs: number; writeMs: number; rows: number; amountSum: number } | undefined;
      if (!result?.ok || output?.rows !== csv.rows || output.amountSum !== csv.amountSum)
        throw new Error(`${prompt}: ${JSON.stringify(result)}`);
      if (i >= 0)
        figures[source].push({
          durationMs: result.durationMs as number,
          readMs: output.readMs,
          writeMs: output.writeMs,
        });
    }
  }
  return figures;
}

const run = async (api: Api, conversationId: string, content: string, files: string[] = []) =>
  readSse(await sendWithFiles(api, conversationId, content, files));

// ---------------------------------------------------------------------------------------------------------------
// Printing

const median = (values: number[]) => summarize(values).median;
const mib = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const millis = (value: number) => `${value.toFixed(0)} ms`;
const check = (met: boolean) => (met ? "✓" : "✗");
const range = (values: number[], digits = 0) =>
  `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

function print(results: Figures[], csv: { text: string; rows: number }, withS3: boolean, wallMs: number): void {
  const csvSize = `${(csv.text.length / MB).toFixed(1)} MB`;
  console.log("\n## Conversation files");
  console.log(
    `${os.availableParallelism()} cores, load average (1 min) ${os.loadavg()[0].toFixed(2)} at the end; the whole ` +
      `part took ${(wallMs / 1000).toFixed(0)} s. Stores: the database (256 KB chunks)` +
      (withS3
        ? " and S3 (s3rver on loopback, in the bench's own process)."
        : "; no S3 rows: tests/support/s3-server.ts is missing."),
  );

  console.log(
    `\n### 1. Uploading ${mib(UPLOAD_BYTES)} of random bytes (multipart, one part), ${UPLOADS} one after another; ` +
      `the server's VmRSS before them (after one small upload), its peak read every ${RSS_EVERY_MS} ms during them ` +
      "(overall, and during each upload in turn), and right after; then the server's own report after a full " +
      "collection (SIGUSR2 with --expose-gc), before the uploads → after: RSS, and the JavaScript heap in use",
  );
  printTable(
    [
      "provider",
      "store",
      "n",
      "MB/s median",
      "range",
      "RSS before",
      "RSS peak",
      "peak − before",
      "peak during each upload",
      "RSS after",
      "collected: RSS",
      "heap used",
      "RSS samples",
    ],
    results.map(({ setup, uploads }) => [
      setup.provider,
      setup.store,
      String(uploads.mbPerSecond.length),
      median(uploads.mbPerSecond).toFixed(1),
      range(uploads.mbPerSecond, 1),
      mib(uploads.rssBefore),
      mib(uploads.rssPeak),
      `${((uploads.rssPeak - uploads.rssBefore) / MB).toFixed(0)} MB`,
      uploads.peaks.map((peak) => (peak / MB).toFixed(0)).join(", ") + " MB",
      mib(uploads.rssAfter),
      `${mib(uploads.collected.before.rss)} → ${mib(uploads.collected.after.rss)}`,
      `${mib(uploads.collected.before.heapUsed)} → ${mib(uploads.collected.after.heapUsed)}`,
      `${uploads.samples} in ${(uploads.sampledMs / 1000).toFixed(1)} s`,
    ]),
  );

  console.log(
    `\n### 2. From sending a message to its run's first model request: with a ${csvSize} CSV attached (uploaded just ` +
      `before), and without; a new conversation each, ${LATENCY_SAMPLES} of each after one not counted`,
  );
  printTable(
    [
      "provider",
      "store",
      "n",
      "without median",
      "range",
      "with CSV median",
      "range",
      "added",
      "model request size",
      "target",
    ],
    results.map(({ setup, latency }) => {
      const added = median(latency.attached) - median(latency.plain);
      return [
        setup.provider,
        setup.store,
        String(latency.plain.length),
        millis(median(latency.plain)),
        range(latency.plain),
        millis(median(latency.attached)),
        range(latency.attached),
        `${added >= 0 ? "+" : ""}${millis(added)}`,
        `${(latency.requestChars[0] / 1024).toFixed(1)} KB → ${(latency.requestChars[1] / 1024).toFixed(1)} KB`,
        `added ≤ ${ATTACHMENT_BUDGET_MS} ms: ${check(added <= ATTACHMENT_BUDGET_MS)}`,
      ];
    }),
  );

  console.log(
    `\n### 3. A Python tool reading a ${csvSize} CSV (${csv.rows} rows) with pd.read_csv, called in a run once a ` +
      `message, ${PYTHON_SAMPLES} of each after one not counted: from /mnt/data (the conversation's file, copied into ` +
      "the jail for the call) against the same CSV the call first writes into the jail's /tmp with numpy and pandas. " +
      "durationMs: the tool_result's; read and write: timed inside the code (datetime: the policy allows no time module)",
  );
  printTable(
    [
      "provider",
      "store",
      "n",
      "/mnt/data: durationMs median",
      "read median",
      "/tmp: durationMs median",
      "write median",
      "read median",
      "/mnt/data read − /tmp read",
    ],
    results.map(({ setup, python }) => {
      if (typeof python === "string")
        return [setup.provider, setup.store, "0", `failed: ${python.replaceAll("|", "\\|").slice(0, 400)}`];
      const { mnt, tmp } = python;
      const [mntRead, tmpRead] = [median(mnt.map((call) => call.readMs)), median(tmp.map((call) => call.readMs))];
      return [
        setup.provider,
        setup.store,
        String(mnt.length),
        millis(median(mnt.map((call) => call.durationMs))),
        millis(mntRead),
        millis(median(tmp.map((call) => call.durationMs))),
        millis(median(tmp.map((call) => call.writeMs))),
        millis(tmpRead),
        `${mntRead - tmpRead >= 0 ? "+" : ""}${millis(mntRead - tmpRead)}`,
      ];
    }),
  );
}
