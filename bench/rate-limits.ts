import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Api, ofType } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { freshPostgresUrl } from "../tests/support/database";
import { ModelServer } from "../tests/support/model-server";
import startPostgres from "../tests/support/postgres";
import { ms, summarize } from "./stats";

/** Two profiles that differ only in a rate limit too high to refuse anything, so that every call takes a count. */
const CONFIG = `profiles:
  - name: counted
    tools: [calculate]
    tool_config:
      calculate:
        rate_limit: { calls: 1000000, per_seconds: 60 }
  - name: uncounted
    tools: [calculate]
default_profile: uncounted
`;
/** Calls of one step, which run side by side, and runs of each profile for each. */
const SHAPES = [
  { calls: 1, runs: 80 },
  { calls: 25, runs: 8 },
];

/**
 * What the shared count of a profile's rate limit adds to a tool call on PostgreSQL: the calls' own durations
 * (callTool's, from the run's tool_result events, in whole ms) with a limit and without, through the real server;
 * one call at a time, and 25 side by side, which count on one row in turn.
 */
export async function benchRateLimits(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const stopPostgres = await startPostgres();
  const configFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-bench-")), "toolsmith.config.yaml");
  fs.writeFileSync(configFile, CONFIG);
  const env = { TOOLSMITH_CONFIG: configFile, TOOLSMITH_SECRET: "bench-secret" };
  const app = scriptedApp(model.url, env, freshPostgresUrl());
  const durations = new Map<string, number[]>();
  try {
    await app.start();
    const api = new Api(app.url);
    for (const shape of SHAPES) {
      for (let run = 0; run < shape.runs + 2; run++) {
        for (const profile of ["counted", "uncounted"]) {
          const prompt = `Calculate ${shape.calls} at once, ${profile}, run ${run}.`;
          const calls = Array.from({ length: shape.calls }, (_, i) => ({
            name: "calculate",
            args: { expression: `${i} * 2` },
          }));
          model.script(prompt, [{ toolCalls: calls }, { text: "Done." }]);
          const { id } = await api.createConversation(profile);
          const results = ofType(await api.run(id, prompt), "tool_result");
          if (results.some((result) => !result.ok)) throw new Error(`a ${profile} call failed`);
          // The first two runs warm the server's code paths and connections.
          const key = `${shape.calls}:${profile}`;
          if (run >= 2)
            durations.set(key, [...(durations.get(key) ?? []), ...results.map((r) => Number(r.durationMs))]);
        }
      }
    }
  } finally {
    await app.stop();
    await stopPostgres();
    await model.stop();
  }
  console.log("\n## A profile's rate limit, counted in PostgreSQL for every instance (calculate's own duration)");
  console.log("| calls in one step | rate limit | n | median | p95 |\n| --- | --- | --- | --- | --- |");
  for (const { calls } of SHAPES) {
    for (const profile of ["uncounted", "counted"]) {
      const stats = summarize(durations.get(`${calls}:${profile}`)!);
      const limit = profile === "counted" ? "shared count" : "none";
      console.log(`| ${calls} | ${limit} | ${stats.n} | ${ms(stats.median)} | ${ms(stats.p95)} |`);
    }
  }
}
