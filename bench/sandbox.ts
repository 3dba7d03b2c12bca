import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkCode } from "@/lib/sandbox/check";
import { runInSandbox, sandboxPool } from "@/lib/sandbox";
import { SandboxPool } from "@/lib/sandbox/pool";
import { config } from "@/lib/settings/config";
import { ms, summarize, timed } from "./stats";

/** The same small tool in the three runtimes: count words and sum their lengths. */
export const JS_TOOL = `function run({ text }) {
  const words = text.split(/\\s+/).filter(Boolean);
  return { words: words.length, letters: words.reduce((sum, word) => sum + word.length, 0) };
}`;
const PY_TOOL = `import json, sys
def run(inputs):
    words = [w for w in inputs["text"].split() if w]
    return {"words": len(words), "letters": sum(len(w) for w in words)}
print(json.dumps(run(json.load(sys.stdin))))`;
const NODE_TOOL = `${JS_TOOL}
let input = ""; process.stdin.on("data", (c) => (input += c)).on("end", () => console.log(JSON.stringify(run(JSON.parse(input)))));`;
export const INPUT = { text: "the quick brown fox jumps over the lazy dog ".repeat(20) };

function subprocess(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject).on("close", () => resolve(out));
    child.stdin.end(JSON.stringify(INPUT));
  });
}

async function sample(count: number, work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push((await timed(work))[0]);
  return times;
}

export async function benchSandbox(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-bench-"));
  fs.writeFileSync(path.join(dir, "tool.py"), PY_TOOL);
  fs.writeFileSync(path.join(dir, "tool.cjs"), NODE_TOOL);

  // Cold: a new pool (thread start + WASM load) and its first call.
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const pool = new SandboxPool(1);
    cold.push(
      (
        await timed(() =>
          pool.run({ mode: "tool", code: JS_TOOL, input: INPUT, limits: config.sandbox }, { fetch: async () => ({}) }),
        )
      )[0],
    );
    await pool.close();
  }
  await sandboxPool().warm();
  await sample(50, () => runInSandbox("tool", { language: "javascript", code: JS_TOOL }, INPUT));
  const warm = await sample(500, () => runInSandbox("tool", { language: "javascript", code: JS_TOOL }, INPUT));
  const python = await sample(40, () => subprocess("python3", [path.join(dir, "tool.py")]));
  const pythonIsolated = await sample(40, () => subprocess("python3", ["-I", "-S", path.join(dir, "tool.py")]));
  const node = await sample(40, () => subprocess(process.execPath, [path.join(dir, "tool.cjs")]));

  const rows = [
    ["QuickJS sandbox, cold (new thread + first call)", summarize(cold)],
    ["QuickJS sandbox, warm call (policy re-check + run)", summarize(warm)],
    ["python3 subprocess per call (SEAT)", summarize(python)],
    ["python3 -I -S subprocess per call", summarize(pythonIsolated)],
    ["node subprocess per call", summarize(node)],
  ] as const;
  console.log("\n## Tool execution (same tool, same input)");
  console.log("| runtime | n | median | p95 |\n| --- | --- | --- | --- |");
  for (const [name, stats] of rows) console.log(`| ${name} | ${stats.n} | ${ms(stats.median)} | ${ms(stats.p95)} |`);
  const warmMedian = summarize(warm).median;
  console.log(
    `warm median ${ms(warmMedian)} (target ≤ 2 ms); ${(summarize(python).median / warmMedian).toFixed(1)}× faster than the python subprocess (target ≥ 10×)`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Stop during a busy tool: from the abort to the call's outcome, which the pool delivers only once the thread
 * has exited (Worker#terminate resolved).
 */
export async function benchCancel(): Promise<void> {
  const pool = new SandboxPool(1);
  await pool.warm();
  const spin =
    "(async () => { await fetch('http://bench.test/'); const end = Date.now() + 3000; while (Date.now() < end) {} })()";
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    const controller = new AbortController();
    let spinning!: () => void;
    const started = new Promise<void>((resolve) => (spinning = resolve));
    const outcome = pool.run(
      { mode: "snippet", code: spin, limits: config.sandbox },
      { fetch: async () => (setTimeout(spinning, 20), { status: 200, url: "", headers: {}, body: "" }) },
      controller.signal,
    );
    await started;
    const stopped = performance.now();
    controller.abort();
    const result = await outcome;
    times.push(performance.now() - stopped);
    if (result.ok || result.error.kind !== "cancelled")
      throw new Error(`expected a cancelled call, got ${JSON.stringify(result)}`);
  }
  await pool.close();
  const stats = summarize(times);
  console.log("\n## Stop during a busy tool (abort → its thread terminated)");
  console.log(`median ${ms(stats.median)}, p95 ${ms(stats.p95)}, n ${stats.n} (target ≤ 100 ms)`);
}

export async function benchRegistration(): Promise<void> {
  const lines = [
    "function run(inputs) {",
    "  const results = [];",
    ...Array.from({ length: 96 }, (_, i) => `  results.push(helper${i % 8}(inputs.value ?? ${i}));`),
    "  return results;",
    "}",
  ];
  const helpers = Array.from({ length: 8 }, (_, i) => `function helper${i}(x) { return x * ${i + 1}; }`);
  const code = [...lines, ...helpers].join("\n");
  await sandboxPool().warm();
  const times = await sample(200, async () => {
    if (!checkCode(code).ok) throw new Error("policy rejected the benchmark tool");
    const compiled = await runInSandbox("compile", { language: "javascript", code });
    if (!compiled.ok) throw new Error(compiled.error?.message);
  });
  const stats = summarize(times);
  console.log(`\n## Registration (parse + policy + compile in the sandbox), ${code.split("\n").length}-line tool`);
  console.log(`median ${ms(stats.median)}, p95 ${ms(stats.p95)} (target median ≤ 10 ms)`);
}
