import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { config } from "@/lib/settings/config";
import { guardedFetch } from "@/lib/sandbox/fetch-guard";
import { runCommand } from "@/lib/tools/native/run-command";
import { ms, summarize, timed } from "./stats";

async function sample(count: number, work: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 20; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push((await timed(work))[0]);
  return times;
}

/** fetch_url's guard over a bare fetch, and run_command's sandbox over a bare spawn. */
export async function benchNativeTools(): Promise<void> {
  const server = http.createServer((_req, res) => res.end("x".repeat(2048)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // The benchmark lets loopback through the guard explicitly; every other check runs as in a real call.
  const guarded = await sample(300, () => guardedFetch({ url }, { limits: config.fetch, isAllowed: () => true }));
  const bare = await sample(300, async () => (await fetch(url)).text());
  server.close();

  const context = {
    ownerId: "bench",
    conversationId: "bench",
    runId: "bench",
    signal: new AbortController().signal,
    tools: { get: () => undefined, add: () => {} },
    settings: {},
  };
  const parsed = runCommand.parse({ command: "true" });
  if (!parsed.ok) throw new Error("run_command refused the benchmark command");
  const sandboxed = await sample(40, async () => {
    const result = await runCommand.execute(parsed.input, context as never);
    if (!result.ok) throw new Error(result.error);
  });
  const spawned = await sample(40, () => new Promise((resolve) => spawn("true").on("close", resolve)));

  const [g, b, s, p] = [guarded, bare, sandboxed, spawned].map(summarize);
  console.log("\n## Native tools");
  console.log(
    `fetch_url's guard: median ${ms(g.median)} vs a bare fetch ${ms(b.median)}: ${ms(g.median - b.median)} more (target < 2 ms)`,
  );
  console.log(
    `run_command \`true\` in bubblewrap: median ${ms(s.median)}, p95 ${ms(s.p95)}; a bare spawn: median ${ms(p.median)}`,
  );
}
