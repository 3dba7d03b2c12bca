import { runInSandbox, sandboxPool } from "@/lib/sandbox";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ms, summarize, timed } from "./stats";

const LIBRARY_SIZE = 500;
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

/**
 * The tool library over HTTP, from a client: search over 500 tools, and what POST /api/tools/{id}/execute adds
 * to the sandbox's own warm call (measured in this process on the same code and input).
 */
export async function benchTools(): Promise<void> {
  const app = scriptedApp("http://127.0.0.1:9/v1");
  await app.start();
  try {
    const api = new Api(app.url);
    const post = (path: string, body: unknown) =>
      api.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    let firstId = "";
    for (let i = 0; i < LIBRARY_SIZE; i++) {
      const [a, b] = [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length]];
      const response = await post("/api/tools", {
        name: `${a}_${b}_${i}`,
        description: `Tool ${i}: ${a} then ${b} a text.`,
        parameters_schema: SCHEMA,
        code: CODE,
      });
      if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
      firstId ||= ((await response.json()) as { id: string }).id;
    }

    const search = (q: string) => async () => {
      const response = await api.fetch(`/api/tools/search?q=${q}`);
      if (!response.ok) throw new Error(`search failed: ${response.status}`);
      await response.json();
    };
    for (let i = 0; i < 30; i++) await search("temperature")();
    const searchTimes: number[] = [];
    for (let i = 0; i < 300; i++) searchTimes.push((await timed(search(WORDS[i % WORDS.length])))[0]);

    const input = { text: "the quick brown fox jumps over the lazy dog" };
    const execute = async () => {
      const response = await post(`/api/tools/${firstId}/execute`, { input });
      if (!((await response.json()) as { ok: boolean }).ok) throw new Error("execute failed");
    };
    await sandboxPool().warm();
    for (let i = 0; i < 50; i++)
      await Promise.all([execute(), runInSandbox("tool", { language: "javascript", code: CODE }, input)]);
    const executeTimes: number[] = [];
    const sandboxTimes: number[] = [];
    for (let i = 0; i < 300; i++) {
      executeTimes.push((await timed(execute))[0]);
      sandboxTimes.push((await timed(() => runInSandbox("tool", { language: "javascript", code: CODE }, input)))[0]);
    }

    const searchStats = summarize(searchTimes);
    const executeStats = summarize(executeTimes);
    const sandboxStats = summarize(sandboxTimes);
    console.log(`\n## Tool library over HTTP (${LIBRARY_SIZE} tools, loopback client)`);
    console.log(
      `GET /api/tools/search?q=: median ${ms(searchStats.median)}, p95 ${ms(searchStats.p95)} (target < 20 ms)`,
    );
    console.log(
      `POST /api/tools/{id}/execute: median ${ms(executeStats.median)}, p95 ${ms(executeStats.p95)}; the sandbox's own warm call: median ${ms(sandboxStats.median)}`,
    );
    console.log(
      `execute adds ${ms(executeStats.median - sandboxStats.median)} at the median (target < 5 ms), HTTP round trip included`,
    );
  } finally {
    await app.stop();
  }
}
