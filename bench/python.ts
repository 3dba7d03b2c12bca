import fs from "node:fs";
import os from "node:os";
import { runInSandbox, pythonPool, type ToolSource } from "@/lib/sandbox";
import { PythonPool } from "@/lib/sandbox/python/pool";
import { config } from "@/lib/settings/config";
import { Api } from "../tests/support/api";
import { cpuMsOf, scriptedApp, type AppServer } from "../tests/support/app-server";
import { ModelServer } from "../tests/support/model-server";
import { INPUT, JS_TOOL } from "./sandbox";
import { ms, summarize, timed, printTable, pythonReady } from "./stats";

/** bench/sandbox.ts' word-count tool, and the same in Python. */
const WORD_COUNT = {
  description: "Count the words of a text and their letters.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};
const JS_WORDS: ToolSource = { language: "javascript", code: JS_TOOL };
const PY_WORDS: ToolSource = {
  language: "python",
  code: `def run(inputs):
    words = inputs["text"].split()
    return {"words": len(words), "letters": sum(len(word) for word in words)}
`,
};
/** A call that uses pandas: a DataFrame of the input's rows, its summary and its table. */
const PANDAS: ToolSource = {
  language: "python",
  code: `import pandas as pd


def run(inputs):
    df = pd.DataFrame(inputs["rows"])
    return {"describe": df.describe().round(3).to_dict(), "table": df.to_markdown(index=False)}
`,
};
const PANDAS_SCHEMA = {
  type: "object",
  properties: { rows: { type: "array", items: { type: "object" } } },
  required: ["rows"],
};
const ROWS = {
  rows: Array.from({ length: 50 }, (_, i) => ({ item: `item-${i}`, price: (i * 7) % 23, quantity: (i * 3) % 11 })),
};
const SPIN = "def run(inputs):\n    while True:\n        pass\n";

const WARM_UP = 30;
const SAMPLES = 300;
const CONCURRENT = 200;
const FRESH_STARTS = 3;
const STOPS = 10;
const MB = 1024 * 1024;

const CPYTHON = "python (CPython)";
const PYODIDE = "python (Pyodide, base)";

interface Runtime {
  label: string;
  /** The checkout whose build the server serves: this one when undefined. */
  cwd?: string;
}

type ToolRun = { ok: boolean; error: string | null; execution_time: number };
interface Call {
  roundTripMs: number;
  status: number;
  body: ToolRun | null;
  text: string;
}

/** Calls one after another, and the CPU time they took per call: the server's, and its sandbox processes'. */
interface Series {
  calls: Call[];
  serverCpuMs: number;
  sandboxCpuMs: number;
}

interface WarmFigures {
  runtime: Runtime;
  python: Series;
  javascript: Series;
  pandas?: Series;
  concurrent: { calls: Call[]; wallMs: number };
  memory: {
    /** What /api/health says per slot (the CPython pool counts shared pages once, Pss; the Pyodide one, Rss). */
    health: number[];
    /** AppServer.residentBytes: the server process's VmRSS. */
    serverBytes: number;
    /** From /proc, per child tree of the server (a slot): VmRSS summed, and Pss summed. */
    slotsRss: number[];
    slotsPss: number[];
    serverPss: number;
  };
  /** The machine's load average (1 min) before figure 1's calls and after them: other work skews them. */
  load: [number, number];
}

/**
 * Python tools on CPython (a zygote per slot in bubblewrap, a forked child per call) measured as people meet them:
 * through a production server's HTTP API beside the same tool in JavaScript, one call at a time and 200 at once, a
 * freshly started server's first call, the memory the processes hold, and a stop. With TOOLSMITH_BENCH_BASELINE
 * naming a checkout of the commit before the rewrite (built, with node_modules), its Pyodide server is measured too.
 */
export async function benchPython(): Promise<void> {
  const baseline = process.env.TOOLSMITH_BENCH_BASELINE;
  const runtimes: Runtime[] = [{ label: CPYTHON }, ...(baseline ? [{ label: PYODIDE, cwd: baseline }] : [])];
  const model = new ModelServer();
  await model.start();
  const warm: WarmFigures[] = [];
  const fresh: { runtime: Runtime; runs: FreshRun[] }[] = [];
  try {
    for (const runtime of runtimes) warm.push(await warmFigures(model.url, runtime));
    for (const runtime of runtimes) {
      const runs: FreshRun[] = [];
      for (let i = 0; i < FRESH_STARTS; i++) runs.push(await firstCallAfterHealth(model.url, runtime));
      fresh.push({ runtime, runs });
    }
  } finally {
    await model.stop();
  }
  const stops = await stopFigures();

  console.log("\n## Python tools on CPython");
  console.log(
    baseline
      ? `Baseline: the Pyodide runtime of the checkout at ${baseline} (rows "${PYODIDE}").`
      : "No baseline rows: set TOOLSMITH_BENCH_BASELINE to a built checkout of the commit before the rewrite " +
          "(git worktree add ../base 2a7833b; npm ci; npm run build there) to add the Pyodide runtime's rows.",
  );
  printWarmCalls(warm);
  printPandas(warm);
  printConcurrent(warm);
  printFirstCall(fresh);
  printMemory(warm);
  printStops(stops);
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring

/** Figures 1, 2, 3 and 5 on one server with its Python processes started with it. */
async function warmFigures(modelUrl: string, runtime: Runtime): Promise<WarmFigures> {
  const app = scriptedApp(modelUrl, { TOOLSMITH_PYTHON_WARM: "1" }, undefined, { cwd: runtime.cwd });
  await app.start();
  try {
    const api = new Api(app.url);
    await api.identity();
    const pythonTool = await register(app, api, { name: "count_words_py", ...WORD_COUNT, ...PY_WORDS });
    const jsTool = await register(app, api, { name: "count_words_js", ...WORD_COUNT, ...JS_WORDS });
    await pythonReady(app);

    const loadBefore = os.loadavg()[0];
    const python = await backToBack(app, api, pythonTool, INPUT, WARM_UP, SAMPLES);
    const javascript = await backToBack(app, api, jsTool, INPUT, WARM_UP, SAMPLES);
    const load: [number, number] = [loadBefore, os.loadavg()[0]];
    let pandas: Series | undefined;
    if (runtime.cwd === undefined) {
      const pandasTool = await register(app, api, {
        name: "describe_rows",
        description: "Summarize rows with pandas.",
        parameters_schema: PANDAS_SCHEMA,
        ...PANDAS,
      });
      pandas = await backToBack(app, api, pandasTool, ROWS, 10, 100);
    }

    // The pool warm and idle: each slot's processes, and the server's own.
    const health = (await (await fetch(`${app.url}/api/health`)).json()) as { python: { residentBytes: number[] } };
    const trees = childTrees(app.pid!);
    const memory = {
      health: health.python.residentBytes,
      serverBytes: app.residentBytes(),
      slotsRss: trees.map((tree) => tree.reduce((sum, pid) => sum + memoryOf(pid, "Rss"), 0)),
      slotsPss: trees.map((tree) => tree.reduce((sum, pid) => sum + memoryOf(pid, "Pss"), 0)),
      serverPss: memoryOf(app.pid!, "Pss"),
    };

    const started = performance.now();
    const calls = await Promise.all(Array.from({ length: CONCURRENT }, () => execute(api, pythonTool, INPUT)));
    const concurrent = { calls, wallMs: performance.now() - started };
    return { runtime, python, javascript, pandas, concurrent, memory, load };
  } finally {
    await app.stop();
  }
}

interface FreshRun {
  /** The client's identity cookie (GET /api/conversations), which any first write of a new client needs. */
  identityMs: number;
  registrationMs: number;
  executeMs: number;
  totalMs: number;
  call: Call;
}

/** Figure 4: a new server (Python processes started with it, the default); from /api/health's first 200 on. */
async function firstCallAfterHealth(modelUrl: string, runtime: Runtime): Promise<FreshRun> {
  const app = scriptedApp(modelUrl, { TOOLSMITH_PYTHON_WARM: "1" }, undefined, { cwd: runtime.cwd });
  // AppServer.start returns as /api/health first answers 200 (polled every 50 ms).
  await app.start();
  const healthy = performance.now();
  try {
    const api = new Api(app.url);
    const [identityMs] = await timed(() => api.identity());
    const [registrationMs, id] = await timed(() =>
      register(app, api, { name: "count_words_py", ...WORD_COUNT, ...PY_WORDS }),
    );
    const call = await execute(api, id, INPUT);
    if (!call.body?.ok) throw new Error(`${runtime.label}: first call failed: ${call.status} ${call.text}`);
    return { identityMs, registrationMs, executeMs: call.roundTripMs, totalMs: performance.now() - healthy, call };
  } finally {
    await app.stop();
  }
}

interface StopFigures {
  label: string;
  stops: number[];
  next: number[];
  nextSandbox: number[];
}

/**
 * Figure 6, in this process: a spinning Python call aborted 100 ms in, from the abort to its answer, and the call
 * right after. Through runInSandbox (the default pool, whose other slot may take the next call), and on a pool of one
 * slot, where the next call must wait for the killed child's slot.
 */
async function stopFigures(): Promise<StopFigures[]> {
  // The pool's processes and socket do not keep a process alive (a server's listener does): this one, meanwhile.
  const alive = setInterval(() => {}, 1000);
  try {
    return await measureAllStops();
  } finally {
    clearInterval(alive);
  }
}

async function measureAllStops(): Promise<StopFigures[]> {
  const viaSandbox = (source: ToolSource, input: unknown, signal?: AbortSignal) =>
    runInSandbox("tool", source, input, signal);
  await pythonPool().warm();
  const pooled = await measureStops(`runInSandbox (pool of ${config.python.workers})`, viaSandbox);
  await pythonPool().close();

  const single = new PythonPool(1, config.sandbox.memoryBytes);
  await single.warm();
  const direct = async (source: ToolSource, input: unknown, signal?: AbortSignal) => {
    const outcome = await single.run({ mode: "tool", code: source.code, input, limits: config.sandbox }, signal);
    if (!("durationMs" in outcome)) throw new Error(`not a call's outcome: ${JSON.stringify(outcome)}`);
    return outcome;
  };
  const alone = await measureStops("PythonPool of 1 slot (same slot next)", direct);
  await single.close();
  return [pooled, alone];
}

async function measureStops(
  label: string,
  run: (
    source: ToolSource,
    input: unknown,
    signal?: AbortSignal,
  ) => Promise<{ ok: boolean; durationMs: number; error?: { kind: string; message: string } }>,
): Promise<StopFigures> {
  for (let i = 0; i < 5; i++) await run(PY_WORDS, INPUT);
  const figures: StopFigures = { label, stops: [], next: [], nextSandbox: [] };
  for (let i = 0; i < STOPS; i++) {
    const controller = new AbortController();
    const spinning = run({ language: "python", code: SPIN }, {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = performance.now();
    controller.abort();
    const result = await spinning;
    figures.stops.push(performance.now() - stopped);
    if (result.ok || result.error?.kind !== "cancelled")
      throw new Error(`${label}: expected a cancelled call: ${JSON.stringify(result)}`);
    const [elapsed, next] = await timed(() => run(PY_WORDS, INPUT));
    if (!next.ok) throw new Error(`${label}: the call after a stop failed: ${JSON.stringify(next)}`);
    figures.next.push(elapsed);
    figures.nextSandbox.push(next.durationMs);
  }
  return figures;
}

async function register(app: AppServer, api: Api, tool: Record<string, unknown>): Promise<string> {
  const response = await api.fetch("/api/tools", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tool),
  });
  if (response.status !== 201)
    throw new Error(
      `registration of ${tool.name}: ${response.status} ${await response.text()}\nserver: ${app.output.slice(-2000)}`,
    );
  return ((await response.json()) as { id: string }).id;
}

async function execute(api: Api, id: string, input: unknown): Promise<Call> {
  const started = performance.now();
  try {
    const response = await api.fetch(`/api/tools/${id}/execute`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });
    const text = await response.text();
    let body: ToolRun | null = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: reported by its text
    }
    return { roundTripMs: performance.now() - started, status: response.status, body, text };
  } catch (error) {
    return { roundTripMs: performance.now() - started, status: 0, body: null, text: (error as Error).message };
  }
}

/** Calls one after another from one client, after a warm-up; every measured call must succeed. */
async function backToBack(
  app: AppServer,
  api: Api,
  id: string,
  input: unknown,
  warmUp: number,
  count: number,
): Promise<Series> {
  for (let i = 0; i < warmUp; i++) await execute(api, id, input);
  const calls: Call[] = [];
  const [server, sandbox] = [app.cpuMs().process, sandboxCpuMs(app.pid!)];
  for (let i = 0; i < count; i++) {
    const call = await execute(api, id, input);
    if (!call.body?.ok) throw new Error(`call failed: ${call.status} ${call.text}\nserver: ${app.output.slice(-2000)}`);
    calls.push(call);
  }
  return {
    calls,
    serverCpuMs: (app.cpuMs().process - server) / count,
    sandboxCpuMs: (sandboxCpuMs(app.pid!) - sandbox) / count,
  };
}

/**
 * CPU time of the server's child processes (the Python slots) so far, in ms: each live one's own and that of the
 * children it has waited for (a zygote's exited children), so a call's child counts once, alive or gone.
 */
const sandboxCpuMs = (pid: number) =>
  childTrees(pid)
    .flat()
    .reduce((sum, child) => {
      try {
        return sum + cpuMsOf(`/proc/${child}/stat`, { children: true });
      } catch {
        return sum; // gone since it was listed
      }
    }, 0);

/** Each child of a process with its descendants: a Python slot's bubblewrap, interpreter and spare child. */
function childTrees(pid: number): number[][] {
  return childrenOf(pid).map((child) => [child, ...descendantsOf(child)]);
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const descendantsOf = (pid: number): number[] => childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);

/**
 * A process's resident memory: Rss counts every page it maps, Pss (proportional set size) a page shared by n
 * processes 1/n, so that a forked child's pages shared with its zygote count once over the two.
 */
function memoryOf(pid: number, field: "Rss" | "Pss"): number {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Printing

type Stats = ReturnType<typeof summarize>;
const check = (met: boolean) => (met ? "✓" : "✗");
const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const roundTrips = (calls: Call[]) => summarize(calls.map((call) => call.roundTripMs));
const executionTimes = (calls: Call[]) => summarize(calls.map((call) => (call.body?.execution_time ?? NaN) * 1000));

const cpu = (series: Series) => `${ms(series.serverCpuMs)} + ${ms(series.sandboxCpuMs)}`;

function printWarmCalls(warm: WarmFigures[]): void {
  console.log(
    `\n### 1. A warm trivial call through POST /api/tools/{id}/execute (word count, back to back from one client, ` +
      `${WARM_UP} warm-up calls first)`,
  );
  const rows: string[][] = [];
  for (const { runtime, python, javascript } of warm) {
    const [py, pyOwn] = [roundTrips(python.calls), executionTimes(python.calls)];
    const [js, jsOwn] = [roundTrips(javascript.calls), executionTimes(javascript.calls)];
    const gap = py.median - js.median;
    const jsLabel = runtime.cwd === undefined ? "javascript" : "javascript (base server)";
    const row = (label: string, series: Series, total: Stats, own: Stats, target: string) => [
      label,
      String(total.n),
      ms(total.median),
      ms(total.p95),
      ms(own.median),
      ms(own.p95),
      cpu(series),
      target,
    ];
    rows.push(
      row(
        runtime.label,
        python,
        py,
        pyOwn,
        `round trip median within 5 ms of ${jsLabel}'s: ${gap >= 0 ? "+" : ""}${ms(gap)} ${check(gap <= 5)}; ` +
          `execution_time median ≤ 5 ms: ${check(pyOwn.median <= 5)}`,
      ),
      row(jsLabel, javascript, js, jsOwn, "(reference)"),
    );
  }
  printTable(
    [
      "runtime",
      "n",
      "round trip median",
      "p95",
      "execution_time median",
      "p95",
      "CPU per call: server + sandbox processes",
      "target",
    ],
    rows,
  );
  for (const { runtime, load } of warm)
    console.log(
      `${runtime.label}'s server: load average (1 min, ${os.availableParallelism()} cores) ${load[0].toFixed(2)} ` +
        `before these calls, ${load[1].toFixed(2)} after`,
    );
}

function printPandas(warm: WarmFigures[]): void {
  const series = warm.find((figures) => figures.pandas)?.pandas;
  if (!series) return;
  console.log(
    `\n### 2. A call that uses pandas (DataFrame of ${ROWS.rows.length} rows, describe() and to_markdown(), through the API)`,
  );
  const [own, total] = [executionTimes(series.calls), roundTrips(series.calls)];
  printTable(
    [
      "runtime",
      "n",
      "execution_time median",
      "p95",
      "round trip median",
      "p95",
      "CPU per call: server + sandbox processes",
      "target",
    ],
    [
      [
        CPYTHON,
        String(own.n),
        ms(own.median),
        ms(own.p95),
        ms(total.median),
        ms(total.p95),
        cpu(series),
        `execution_time median ≤ 20 ms: ${check(own.median <= 20)}`,
      ],
    ],
  );
}

function printConcurrent(warm: WarmFigures[]): void {
  console.log(`\n### 3. ${CONCURRENT} concurrent Python calls from one identity (Promise.all of execute requests)`);
  const rows = warm.map(({ runtime, concurrent: { calls, wallMs } }) => {
    const failures = new Map<string, number>();
    for (const call of calls) {
      if (call.status === 200 && call.body?.ok === true) continue;
      const why =
        call.status === 200 ? `200 ok:false: ${call.body?.error}` : `${call.status}: ${call.text.slice(0, 160)}`;
      failures.set(why, (failures.get(why) ?? 0) + 1);
    }
    const answered = calls.length - [...failures.values()].reduce((sum, count) => sum + count, 0);
    const latency = roundTrips(calls);
    const max = Math.max(...calls.map((call) => call.roundTripMs));
    const failed = [...failures].map(([why, count]) => `${count}× ${why.replaceAll("|", "\\|")}`).join("; ") || "none";
    return [
      runtime.label,
      String(calls.length),
      String(answered),
      failed,
      ms(latency.p95),
      ms(max),
      ms(wallMs),
      `all answered 200 ok:true, none failed for want of a process: ${check(answered === calls.length)}`,
    ];
  });
  printTable(
    ["runtime", "calls", "200 ok:true", "failed (by error)", "p95 latency", "max", "wall time", "target"],
    rows,
  );
}

function printFirstCall(fresh: { runtime: Runtime; runs: FreshRun[] }[]): void {
  console.log(
    "\n### 4. The first Python call on a freshly started server (TOOLSMITH_PYTHON_WARM=1, the default), " +
      "from /api/health's first 200: a new client's identity cookie, registration (its check runs in a Python process) and execute",
  );
  const rows = fresh.map(({ runtime, runs }) => {
    const total = summarize(runs.map((run) => run.totalMs));
    const worst = Math.max(...runs.map((run) => run.totalMs));
    return [
      runtime.label,
      String(runs.length),
      runs.map((run) => ms(run.totalMs)).join(", "),
      ms(total.median),
      ms(summarize(runs.map((run) => run.identityMs)).median),
      ms(summarize(runs.map((run) => run.registrationMs)).median),
      ms(summarize(runs.map((run) => run.executeMs)).median),
      ms(summarize(runs.map((run) => (run.call.body?.execution_time ?? NaN) * 1000)).median),
      `< 3 s: ${check(worst < 3000)}${worst < 3000 ? "" : ` (worst ${ms(worst)})`}`,
    ];
  });
  printTable(
    [
      "runtime",
      "fresh servers",
      "each",
      "median",
      "identity cookie median",
      "registration median",
      "execute median",
      "execution_time median",
      "target",
    ],
    rows,
  );
}

function printMemory(warm: WarmFigures[]): void {
  console.log(
    "\n### 5. Resident memory with the pool warm and idle: /api/health's python.residentBytes per slot (bubblewrap + " +
      "interpreter + spare child; CPython's counts pages shared with the zygote once (Pss), Pyodide's counted Rss), " +
      "the server's own (AppServer.residentBytes, VmRSS), and both measures from /proc for every slot alike",
  );
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const each = (values: number[]) => `${values.map(mb).join(" + ")} = ${mb(sum(values))}`;
  const rows = warm.map(({ runtime, memory }) => [
    runtime.label,
    each(memory.health),
    mb(memory.serverBytes),
    mb(sum(memory.health) + memory.serverBytes),
    each(memory.slotsRss),
    each(memory.slotsPss),
    mb(memory.serverPss),
    "— (reported: the issue sets none; TOOLSMITH_PYTHON_WORKERS' text says 150–200 MB per process)",
  ]);
  printTable(
    [
      "runtime",
      "health: per slot = sum",
      "server RSS",
      "server + health sum",
      "/proc Rss per slot = sum",
      "/proc Pss per slot = sum",
      "server Pss",
      "target",
    ],
    rows,
  );
}

function printStops(stops: StopFigures[]): void {
  console.log(
    `\n### 6. Stop: a spinning Python call aborted 100 ms in (in this process), ${STOPS} times; and the call right after`,
  );
  const rows = stops.map(({ label, stops: times, next, nextSandbox }) => {
    const [stop, after, own] = [summarize(times), summarize(next), summarize(nextSandbox)];
    return [
      label,
      String(stop.n),
      ms(stop.median),
      ms(stop.p95),
      ms(after.median),
      ms(after.p95),
      ms(own.median),
      `abort → answer median and p95 ≤ 100 ms: ${check(stop.median <= 100 && stop.p95 <= 100)}`,
    ];
  });
  printTable(
    [
      "through",
      "n",
      "abort → answer median",
      "p95",
      "next call round trip median",
      "p95",
      "next call sandbox time median",
      "target",
    ],
    rows,
  );
}
