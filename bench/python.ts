import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pythonPool, runInSandbox, sandboxPool, type ToolSource } from "@/lib/sandbox";
import { PythonPool } from "@/lib/sandbox/python/pool";
import { config } from "@/lib/settings/config";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ModelServer } from "../tests/support/model-server";
import { INPUT, JS_TOOL } from "./sandbox";
import { ms, summarize, timed } from "./stats";

/** bench/sandbox.ts' word-count tool, and the same in Python. */
const TOOLS: ToolSource[] = [
  { language: "javascript", code: JS_TOOL },
  {
    language: "python",
    code: `def run(inputs):
    words = inputs["text"].split()
    return {"words": len(words), "letters": sum(len(word) for word in words)}
`,
  },
];
const SPIN = "def run(inputs):\n    while True:\n        pass\n";
const MB = 1024 * 1024;

/**
 * Python beside JavaScript in one run: a warm call's sandbox time (what `execution_time` reports) and its round
 * trip; a process's start from the memory image, and the image's making; memory per process; and, on a production
 * server, the first Python call after /api/health answers, registration included, and the server's memory.
 */
export async function benchPython(): Promise<void> {
  await Promise.all([sandboxPool().warm(), pythonPool().warm()]);
  console.log("\n## Python tools beside JavaScript (same tool, same input)");
  console.log(
    "| language | n | sandbox time median | p95 | round trip median | p95 |\n| --- | --- | --- | --- | --- | --- |",
  );
  for (const source of TOOLS) {
    for (let i = 0; i < 50; i++) await runInSandbox("tool", source, INPUT);
    const sandbox: number[] = [];
    const roundTrip: number[] = [];
    for (let i = 0; i < 500; i++) {
      const [elapsed, result] = await timed(() => runInSandbox("tool", source, INPUT));
      if (!result.ok) throw new Error(`${source.language}: ${result.error.message}`);
      sandbox.push(result.durationMs);
      roundTrip.push(elapsed);
    }
    const [own, total] = [summarize(sandbox), summarize(roundTrip)];
    console.log(
      `| ${source.language} | ${own.n} | ${ms(own.median)} | ${ms(own.p95)} | ${ms(total.median)} | ${ms(total.p95)} |`,
    );
  }
  console.log("targets: Python sandbox time median ≤ 5 ms, p95 ≤ 10 ms");

  const resident = pythonPool().stats().residentBytes;
  console.log(
    `\nResident memory per Python process (interpreter, Node and bubblewrap), pool of ${resident.length} warm: ` +
      resident.map((bytes) => `${(bytes / MB).toFixed(0)} MB`).join(", "),
  );

  const starts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const pool = new PythonPool(1, config.sandbox.memoryBytes);
    starts.push((await timed(() => pool.warm()))[0]);
    await pool.close();
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-bench-python-"));
  const maker = new PythonPool(1, config.sandbox.memoryBytes, path.join(scratch, "image.snapshot"));
  const [making] = await timed(() => maker.warm());
  await maker.close();
  fs.rmSync(scratch, { recursive: true, force: true });
  const start = summarize(starts);
  console.log(
    `A process from the memory image to ready (warm-up call included): median ${ms(start.median)} of ${start.n}; ` +
      `the first process of an installation, making the image: ${ms(making)}`,
  );

  const stops: number[] = [];
  for (let i = 0; i < 10; i++) {
    await pythonPool().warm();
    const controller = new AbortController();
    const spinning = runInSandbox("tool", { language: "python", code: SPIN }, {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = performance.now();
    controller.abort();
    const result = await spinning;
    stops.push(performance.now() - stopped);
    if (result.ok || result.error.kind !== "cancelled")
      throw new Error(`expected a cancelled call: ${JSON.stringify(result)}`);
  }
  const stop = summarize(stops);
  console.log(
    `Stop during a spinning Python tool (abort → answered, process killed): median ${ms(stop.median)}, p95 ${ms(stop.p95)} (target ≤ 100 ms)`,
  );
  await pythonPool().close();

  await firstCallAfterHealth();
}

/** A production server, started with the image made: /api/health, then register a Python tool and call it. */
async function firstCallAfterHealth(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const app = scriptedApp(model.url, { TOOLSMITH_PYTHON_WARM: "1" });
  try {
    await app.start();
    const api = new Api(app.url);
    const [elapsed] = await timed(async () => {
      const registered = await api.fetch("/api/tools", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "count_words",
          description: "Count the words of a text and their letters.",
          parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          ...TOOLS[1],
        }),
      });
      if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`);
      const { id } = (await registered.json()) as { id: string };
      const called = await api.fetch(`/api/tools/${id}/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: INPUT }),
      });
      if (!called.ok) throw new Error(`call: ${called.status} ${await called.text()}`);
    });
    const health = (await (await fetch(`${app.url}/api/health`)).json()) as { python: { residentBytes: number[] } };
    const python = health.python.residentBytes.reduce((sum, bytes) => sum + bytes, 0);
    console.log(
      `First Python call after /api/health answered, registration included: ${ms(elapsed)} (target < 3 s); ` +
        `server resident ${(app.residentBytes() / MB).toFixed(0)} MB, its Python processes ` +
        `${health.python.residentBytes.map((bytes) => `${(bytes / MB).toFixed(0)} MB`).join(" + ")} = ${(python / MB).toFixed(0)} MB`,
    );
  } finally {
    await app.stop();
    await model.stop();
  }
}
