import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freshPostgresUrl, freshSqliteUrl, prepareDatabase } from "../tests/support/database";
import { ModelServer } from "../tests/support/model-server";
import startPostgres from "../tests/support/postgres";
import {
  asNewToolVersion,
  measureRecall,
  RETRIEVAL_TASKS,
  syntheticTools,
  TOOL_CORPUS,
  type RecallFigures,
} from "../tests/support/tool-corpus";
import { ms, summarize } from "./stats";

/** Library sizes measured: the corpus padded with synthetic tools. */
const SIZES = [500, 5000];
/** Timed passes over the task set at each size, after one that warms the caches. */
const ROUNDS = 5;
const OWNER = "bench-retrieval";

interface SizeFigures {
  tools: number;
  /** Milliseconds to store the tools added for this size, per tool. */
  storeMsPerTool: number;
  recall: Omit<RecallFigures, "misses">;
  latency: { n: number; median: number; p95: number; max: number };
}

/**
 * In a process of its own (the database client is the process's, chosen by DATABASE_URL when first loaded): store
 * the library at each size on a fresh database, and measure recall and search latency over the task set, with the
 * embedding model the environment names, if any.
 */
async function measure(databaseUrl: string): Promise<SizeFigures[]> {
  process.env.DATABASE_URL = databaseUrl;
  await prepareDatabase(databaseUrl);
  const { saveToolVersion } = await import("@/lib/db/queries/tools");
  const { searchTools } = await import("@/lib/retrieval/tool-search");
  const search = async (query: string) =>
    (await searchTools({ ownerId: OWNER, query, k: 8, scope: "library" })).map((hit) => hit.tool.name);
  const padding = syntheticTools(Math.max(...SIZES) - TOOL_CORPUS.length);
  const library = [...TOOL_CORPUS, ...padding];
  const figures: SizeFigures[] = [];
  let stored = 0;
  for (const size of SIZES) {
    const started = performance.now();
    for (const tool of library.slice(stored, size)) await saveToolVersion(asNewToolVersion(tool, OWNER));
    const storeMsPerTool = (performance.now() - started) / (size - stored);
    stored = size;
    // A pass that warms the caches, and embeds the library when there is an embedding model.
    for (const { task } of RETRIEVAL_TASKS) await search(task);
    const { misses: _, ...recall } = await measureRecall(search);
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const { task } of RETRIEVAL_TASKS) {
        const before = performance.now();
        await search(task);
        samples.push(performance.now() - before);
      }
    }
    const { n, median, p95 } = summarize(samples);
    figures.push({ tools: size, storeMsPerTool, recall, latency: { n, median, p95, max: Math.max(...samples) } });
  }
  return figures;
}

async function measureInChild(databaseUrl: string, env: Record<string, string> = {}): Promise<SizeFigures[]> {
  const { TOOLSMITH_EMBEDDING_MODEL: _, ...inherited } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), databaseUrl],
    { env: { ...inherited, ...env, DATABASE_URL: databaseUrl }, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

/**
 * Retrieval (issue 31): full-text recall@1 and recall@8 over the task set, and the latency of one search (k = 8)
 * over 500 and 5,000 library tools, on SQLite (FTS5) and PostgreSQL (full-text search), without embeddings; then
 * hybrid on SQLite, with the scripted server's stand-in embedder (a vector of hashed words, so its recall says
 * nothing of meaning; its latency is the embedding request and the comparison with every tool's vector).
 */
export async function benchRetrieval(): Promise<void> {
  const results: [string, SizeFigures[]][] = [["SQLite, full text", await measureInChild(freshSqliteUrl())]];
  const stopPostgres = await startPostgres();
  try {
    results.push(["PostgreSQL, full text", await measureInChild(freshPostgresUrl())]);
  } finally {
    await stopPostgres();
  }
  const model = new ModelServer();
  await model.start();
  try {
    const embeddings = {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "bench-key",
      TOOLSMITH_MODEL: "scripted-model",
      TOOLSMITH_EMBEDDING_MODEL: "word-hash-embedder",
    };
    results.push(["SQLite, hybrid (stand-in embedder)", await measureInChild(freshSqliteUrl(), embeddings)]);
  } finally {
    await model.stop();
  }
  console.log(
    `\n## Finding library tools (${TOOL_CORPUS.length} written tools padded with synthetic ones, ${RETRIEVAL_TASKS.length} tasks, k = 8, ${ROUNDS} rounds)`,
  );
  console.log("| database | tools | recall@1 | recall@8 | search median | p95 | max | storing a tool |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const [provider, sizes] of results) {
    for (const { tools, recall, latency, storeMsPerTool } of sizes) {
      console.log(
        `| ${provider} | ${tools} | ${recall.recallAt1.toFixed(3)} | ${recall.recallAt8.toFixed(3)} | ${ms(latency.median)} | ${ms(latency.p95)} | ${ms(latency.max)} | ${ms(storeMsPerTool)} |`,
      );
    }
  }
  console.log(
    "(target: a search over 500 tools under 20 ms without embeddings; the first pass, not timed, embeds the library)",
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measure(process.argv[2]);
  console.log(JSON.stringify(figures));
  process.exit(0);
}
