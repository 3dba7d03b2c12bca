import { seedSignedIn } from "../tests/support/accounts";
import { Api, ofType } from "../tests/support/api";
import { scriptedApp, type AppServer } from "../tests/support/app-server";
import { freshPostgresUrl, freshSqliteUrl } from "../tests/support/database";
import { ModelServer } from "../tests/support/model-server";
import startPostgres from "../tests/support/postgres";
import { ms, timed } from "./stats";

const RUNS = Number(process.env.BENCH_THROUGHPUT_RUNS ?? 400);
const LOADS = Number(process.env.BENCH_THROUGHPUT_LOADS ?? 4);
/** One of the two only: SQLite or PostgreSQL. */
const PROVIDER = process.env.BENCH_THROUGHPUT_PROVIDER;
/** Runs of a signed-in account (TOOLSMITH_AUTH=optional, a session cookie) instead of an anonymous identity. */
const SIGNED_IN = process.env.BENCH_THROUGHPUT_SIGNED_IN === "1";
const ANSWER = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
const TOOL = {
  name: "tally",
  description: "Count the letters of a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return { letters: text.replace(/[^a-z]/gi, '').length }; }",
};

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * One instance's capacity: RUNS runs at once, each registering a tool, calling it and streaming a 200-word answer,
 * LOADS times over; the resident memory and the live heap after a full collection are read after each load, so a
 * per-run leak shows as a heap that grows load after load.
 */
async function loads(model: ModelServer, app: AppServer, label: string, databaseUrl: string): Promise<void> {
  const api = new Api(app.url);
  if (SIGNED_IN) api.session = (await seedSignedIn(databaseUrl, "bench@example.com")).cookie;
  else await api.identity();
  const idle = await app.stats();
  console.log(`${label}: idle: resident ${mb(idle.rss)}, heap after GC ${mb(idle.heapUsed)}`);
  for (let load = 1; load <= LOADS; load++) {
    const conversations = await Promise.all(Array.from({ length: RUNS }, () => api.createConversation()));
    conversations.forEach((_, index) =>
      model.script(`${label} load ${load} run ${index}`, [
        { toolCalls: [{ name: "register_tool", args: TOOL }] },
        { toolCalls: [{ name: "tally", args: { text: `run ${index}` } }] },
        { text: ANSWER, chunkSize: 12 },
      ]),
    );
    const cpuBefore = app.cpuMs();
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, app.residentBytes())), 200);
    const [wall, results] = await timed(() =>
      Promise.all(conversations.map(({ id }, index) => api.run(id, `${label} load ${load} run ${index}`))),
    ).finally(() => clearInterval(sampler));
    const failed = results.filter(
      (events) =>
        events.at(-1)?.data.status !== "completed" || ofType(events, "tool_result").some((result) => !result.ok),
    );
    if (failed.length > 0)
      console.log(
        `  a failed run: ${JSON.stringify([...ofType(failed[0], "error"), ...ofType(failed[0], "tool_result"), failed[0].at(-1)?.data]).slice(0, 600)}`,
      );
    const cpuAfter = app.cpuMs();
    const perRun = (key: "process" | "mainThread") => ((cpuAfter[key] - cpuBefore[key]) / RUNS).toFixed(1);
    model.requests.length = 0;
    const after = await app.stats();
    console.log(
      `  load ${load}: ${RUNS} runs in ${ms(wall)} (${(RUNS / (wall / 1000)).toFixed(1)} runs/s), ${failed.length} failed; server CPU per run ${perRun("mainThread")} ms main thread, ${perRun("process")} ms all threads; ` +
        `resident peak ${mb(peakRss)}, after ${mb(after.rss)}; heap after GC ${mb(after.heapUsed)}`,
    );
  }
}

/** Throughput and memory of one instance on SQLite, and of one on PostgreSQL. */
export async function benchThroughput(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const stopPostgres = await startPostgres();
  const env = {
    NODE_OPTIONS: `--expose-gc ${process.env.BENCH_NODE_OPTIONS ?? ""}`,
    TOOLSMITH_SECRET: "bench-secret",
    ...(SIGNED_IN && { TOOLSMITH_AUTH: "optional" }),
  };
  try {
    console.log(
      `\n## Throughput of one instance: ${RUNS} concurrent runs (register a tool, call it, stream 200 words), ${LOADS} loads, ${SIGNED_IN ? "signed in (a session)" : "anonymous"}`,
    );
    for (const [label, databaseUrl] of [
      ["SQLite", freshSqliteUrl()],
      ["PostgreSQL", freshPostgresUrl()],
    ].filter(([label]) => !PROVIDER || label === PROVIDER)) {
      const app = scriptedApp(model.url, env, databaseUrl);
      await app.start();
      try {
        await loads(model, app, label, databaseUrl);
      } catch (error) {
        console.error(`${label} failed; the server said:\n${app.output.slice(-3000)}`);
        throw error;
      } finally {
        await app.stop();
      }
    }
  } finally {
    await stopPostgres();
    await model.stop();
  }
}
