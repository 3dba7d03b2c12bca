import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runInSandbox, sandboxPool } from "@/lib/sandbox";
import { Api, sendJson } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { freshPostgresUrl, freshSqliteUrl } from "../tests/support/database";
import startPostgres from "../tests/support/postgres";
import { ms, printTable, summarize, timed } from "./stats";

/** Library sizes the search is timed at, on each provider. */
const SEARCH_SIZES = [500, 5000];
/** Searches timed at each size, after 30 that warm up. */
const SEARCHES = 300;
const WORDS = [
  "parse",
  "convert",
  "format",
  "count",
  "hash",
  "slug",
  "date",
  "csv",
  "json",
  "temperature",
  "currency",
  "distance",
];
const CODE = "function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }";
const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

/** The i-th tool of the benchmark's library: two of WORDS in its name and description, so a word matches many. */
const libraryTool = (i: number) => {
  const [a, b] = [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length]];
  return { name: `${a}_${b}_${i}`, description: `Tool ${i}: ${a} then ${b} a text.` };
};

interface SearchFigures {
  tools: number;
  median: number;
  p95: number;
  max: number;
}

/** GET /api/tools/search?q=<one of WORDS> (its default limit, 50), timed from a loopback client. */
async function timeSearches(api: Api): Promise<Omit<SearchFigures, "tools">> {
  const search = (q: string) => async () => {
    const response = await api.fetch(`/api/tools/search?q=${q}`);
    if (!response.ok) throw new Error(`search failed: ${response.status}`);
    await response.json();
  };
  for (let i = 0; i < 30; i++) await search("temperature")();
  const times: number[] = [];
  for (let i = 0; i < SEARCHES; i++) times.push((await timed(search(WORDS[i % WORDS.length])))[0]);
  const { median, p95 } = summarize(times);
  return { median, p95, max: Math.max(...times) };
}

/**
 * Search over HTTP at each of SEARCH_SIZES on one database: the library is stored straight into it by a child
 * process (5,000 registrations through the API would take minutes), as the client's own identity's tools.
 */
async function searchAtSizes(databaseUrl: string): Promise<SearchFigures[]> {
  // PostgreSQL's instances must be given the key that signs identity cookies.
  const app = scriptedApp("http://127.0.0.1:9/v1", { TOOLSMITH_SECRET: "bench-secret" }, databaseUrl);
  await app.start();
  try {
    const api = new Api(app.url);
    const owner = (await api.identity()).split(".")[0];
    const figures: SearchFigures[] = [];
    let stored = 0;
    for (const size of SEARCH_SIZES) {
      await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", fileURLToPath(import.meta.url), databaseUrl, owner, String(stored), String(size)],
        { env: { ...process.env, DATABASE_URL: databaseUrl } },
      );
      stored = size;
      figures.push({ tools: size, ...(await timeSearches(api)) });
    }
    return figures;
  } finally {
    await app.stop();
  }
}

/** The tool library over HTTP, from a client: search over 500 and 5,000 tools on SQLite and PostgreSQL, then execute. */
export async function benchTools(): Promise<void> {
  console.log(`\n## Tool library over HTTP (loopback client)`);
  console.log(
    `GET /api/tools/search?q=<a word of a sixth of the tools> (limit 50), ${SEARCHES} searches (target: p95 under 20 ms at 500 tools):`,
  );
  console.log("| database | tools | median | p95 | max |");
  console.log("| --- | --- | --- | --- | --- |");
  const print = (provider: string, sizes: SearchFigures[]) => {
    for (const { tools, median, p95, max } of sizes)
      console.log(`| ${provider} | ${tools} | ${ms(median)} | ${ms(p95)} | ${ms(max)} |`);
  };
  print("SQLite", await searchAtSizes(freshSqliteUrl()));
  const stopPostgres = await startPostgres();
  try {
    print("PostgreSQL", await searchAtSizes(freshPostgresUrl()));
  } finally {
    await stopPostgres();
  }
  await benchExecute();
}

/** Calls timed per server, after WARM_UP that are not. */
const EXECUTES = 300;
const WARM_UP = 50;

/**
 * What POST /api/tools/{id}/execute adds to the sandbox's own warm call (measured in this process on the same code and
 * input), beside a GET /api/health round trip, the app's cheapest route (target: no more than it), and the server's
 * main-thread CPU per call of each. With TOOLSMITH_BENCH_BASELINE naming another built checkout, its server is
 * measured too, the calls to both taken in turn so that both meet the same load.
 */
export async function benchExecute(): Promise<void> {
  const baseline = process.env.TOOLSMITH_BENCH_BASELINE;
  const servers = [
    { label: "this checkout", app: scriptedApp("http://127.0.0.1:9/v1") },
    ...(baseline
      ? [
          {
            label: `baseline (${baseline})`,
            app: scriptedApp("http://127.0.0.1:9/v1", {}, undefined, { cwd: baseline }),
          },
        ]
      : []),
  ];
  const input = { text: "the quick brown fox jumps over the lazy dog" };
  const sandbox = () => runInSandbox("tool", { language: "javascript", code: CODE }, input);
  try {
    const clients = await Promise.all(
      servers.map(async ({ app }) => {
        await app.start();
        const api = new Api(app.url);
        const created = await sendJson(api, "/api/tools", "POST", {
          ...libraryTool(0),
          parameters_schema: SCHEMA,
          code: CODE,
        });
        if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
        const { id } = (await created.json()) as { id: string };
        const execute = async () => {
          const response = await sendJson(api, `/api/tools/${id}/execute`, "POST", { input });
          if (!((await response.json()) as { ok: boolean }).ok) throw new Error("execute failed");
        };
        const health = async () => {
          const response = await api.fetch("/api/health");
          if (!response.ok) throw new Error(`health failed: ${response.status}`);
          await response.json();
        };
        /** The server's main-thread CPU per call of `call`, over EXECUTES calls in a row: less at the mercy of the load. */
        const cpuPerCall = async (call: () => Promise<void>) => {
          const before = app.cpuMs().mainThread;
          for (let i = 0; i < EXECUTES; i++) await call();
          return (app.cpuMs().mainThread - before) / EXECUTES;
        };
        return { execute, health, cpuPerCall, executeTimes: [] as number[], healthTimes: [] as number[] };
      }),
    );
    await sandboxPool().warm();
    const sandboxTimes: number[] = [];
    for (let i = 0; i < WARM_UP + EXECUTES; i++) {
      // Each server first every other time: neither gains from following the other.
      for (const client of i % 2 ? [...clients].reverse() : clients) {
        client.executeTimes.push((await timed(client.execute))[0]);
        client.healthTimes.push((await timed(client.health))[0]);
      }
      sandboxTimes.push((await timed(sandbox))[0]);
    }
    const measured = (times: number[]) => summarize(times.slice(WARM_UP));
    const cpu: { execute: number; health: number }[] = [];
    for (const client of clients)
      cpu.push({ execute: await client.cpuPerCall(client.execute), health: await client.cpuPerCall(client.health) });
    const sandboxMedian = measured(sandboxTimes).median;
    console.log(
      `\nPOST /api/tools/{id}/execute, ${EXECUTES} calls per server in turn with GET /api/health and the sandbox's own warm call (median ${ms(sandboxMedian)}); target: execute adds no more than a health round trip`,
    );
    printTable(
      [
        "server",
        "execute median",
        "execute p95",
        "execute − sandbox",
        "GET /api/health median",
        "server CPU per execute",
        "per health",
      ],
      servers.map(({ label }, index) => {
        const execute = measured(clients[index].executeTimes);
        return [
          label,
          ms(execute.median),
          ms(execute.p95),
          ms(execute.median - sandboxMedian),
          ms(measured(clients[index].healthTimes).median),
          ms(cpu[index].execute),
          ms(cpu[index].health),
        ];
      }),
    );
  } finally {
    await Promise.all(servers.map(({ app }) => app.stop()));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The child that stores the library: tools [from, to) of the given owner, on the database DATABASE_URL names.
  const [, , , ownerId, from, to] = process.argv;
  const { saveToolVersion } = await import("@/lib/db/queries/tools");
  for (let i = Number(from); i < Number(to); i++)
    await saveToolVersion({
      ...libraryTool(i),
      ownerId,
      conversationId: null,
      runId: null,
      parametersSchema: SCHEMA,
      code: CODE,
      examples: [],
    });
  process.exit(0);
}
