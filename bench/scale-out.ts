import fs from "node:fs";
import { availableParallelism } from "node:os";
import { Api, ofType } from "../tests/support/api";
import { CLOCK_TICKS_PER_SECOND, cpuMsOf, scriptedApp, type AppServer } from "../tests/support/app-server";
import { freshPostgresUrl, freshSqliteUrl } from "../tests/support/database";
import { ModelServer } from "../tests/support/model-server";
import startPostgres from "../tests/support/postgres";
import { openSse, type SseMessage } from "../tests/support/sse";
import { eventLoopProbe } from "../server-runtime.mjs";
import { ms, summarize, timed } from "./stats";

const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 200);
const DELTAS = 200;
/** A live model: a delta every 50 ms (20 tokens a second), so a run streams for about ten seconds. */
const DELTA_GAP_MS = 50;
/** A run's first second of deltas, which meet every other run's start (message, claim, tool call) on the same cores. */
const STARTING_DELTAS = 20;

/** A delta read from a stream: which delta of its run it was, and how long after the model server wrote it. */
interface DeltaLatency {
  index: number;
  ms: number;
}

interface LoadResult {
  wallMs: number;
  problems: number;
  notCompleted: number;
  /**
   * Deltas a follower read live, i.e. written after its stream delivered its first event: from the model server's
   * write to the follower's read. Deltas written before then are the log so far, read from the store as it attached.
   */
  latencies: DeltaLatency[];
  /** The same, read from the run's own stream on the instance that executes it (every delta: it attached first). */
  ownLatencies: DeltaLatency[];
  /** What following a run from another instance adds to each delta the follower read live: its latency minus the own stream's. */
  addedLatencies: DeltaLatency[];
  /** Each follower's request to its first event, in ms. */
  attachMs: number[];
  /** Deltas written before their follower attached. */
  caughtUp: number;
  /** What the first run that did not complete ended with. */
  firstFailure?: string;
  /**
   * CPU used during the load, in cores: the whole machine (every process and the kernel's own work, the loopback
   * network's included), each instance (all its threads), this process (the model server and the
   * clients) and PostgreSQL (all its processes; 0 with SQLite).
   */
  cores: { machine: number; instances: number[]; loadGenerator: number; postgres: number };
  /** How late each process's event loop ran timers during the load (every hop of a delta waits that long), in ms. */
  eventLoopDelays: { instances: LoopDelay[]; loadGenerator: LoopDelay };
}

type LoopDelay = ReturnType<ReturnType<typeof eventLoopProbe>["lateness"]>;

/**
 * RUNS runs at once, each calling a tool and then streaming DELTAS stamped deltas; run i executes on instance
 * i % n and is followed live on instance (i + 1) % n (the same one when there is one). Checks that each
 * follower saw exactly the executing instance's stream, ids 1… without gaps, ending in a completed run.
 */
async function load(model: ModelServer, instances: AppServer[], label: string): Promise<LoadResult> {
  const person = new Api(instances[0].url);
  await person.identity();
  const urls = instances.map((instance) => instance.url);
  const conversations = await Promise.all(Array.from({ length: RUNS }, () => person.createConversation()));
  conversations.forEach((_, index) =>
    model.script(`${label} ${index}`, [
      { toolCalls: [{ name: "calculate", args: { expression: `${index} * 2` } }] },
      { deltas: DELTAS, stamped: true, delayMs: DELTA_GAP_MS },
    ]),
  );
  /** Note each stamped delta a stream reads: its index in the run → when the model server wrote it and the latency. */
  const stampInto =
    (read: Map<number, { writtenAt: number; ms: number }>, onMessage = () => {}) =>
    (message: SseMessage) => {
      onMessage();
      if (message.data.type === "text_delta") {
        const [index, writtenAt] = String(message.data.delta).slice(0, -1).split("@");
        read.set(Number(index), { writtenAt: Number(writtenAt), ms: performance.now() - Number(writtenAt) });
      }
      return false;
    };
  const cpuBefore = {
    machine: machineBusyMs(),
    instances: instances.map((instance) => instance.cpuMs().process),
    loadGenerator: process.cpuUsage(),
    postgres: postgresCpuMs(),
  };
  // Each instance's delays are counted from here (stats() starts them over); this process's, likewise.
  await Promise.all(instances.map((instance) => instance.stats()));
  const loadGeneratorDelay = eventLoopProbe();
  const [wallMs, results] = await timed(() =>
    Promise.all(
      conversations.map(async ({ id }, index) => {
        const executing = urls[index % urls.length];
        const following = urls[(index + 1) % urls.length];
        const own = new Map<number, { writtenAt: number; ms: number }>();
        const followed = new Map<number, { writtenAt: number; ms: number }>();
        const stream = await openSse(
          `${executing}/api/conversations/${id}/messages`,
          { method: "POST", cookie: person.cookie, body: { content: `${label} ${index}` } },
          stampInto(own),
        );
        const requestedAt = performance.now();
        let attachedAt = Infinity;
        const followedEvents = await openSse(
          `${following}/api/conversations/${id}/events`,
          { cookie: person.cookie },
          stampInto(followed, () => (attachedAt = Math.min(attachedAt, performance.now()))),
        );
        return {
          streamed: await stream.ended,
          followed: await followedEvents.ended,
          own,
          followedDeltas: followed,
          attachMs: attachedAt - requestedAt,
          attachedAt,
        };
      }),
    ),
  );
  const eventLoopDelays = {
    instances: (await Promise.all(instances.map((instance) => instance.stats()))).map(
      ({ eventLoopDelayMs }) => eventLoopDelayMs,
    ),
    loadGenerator: loadGeneratorDelay.lateness(),
  };
  loadGeneratorDelay.stop();
  const { user, system } = process.cpuUsage(cpuBefore.loadGenerator);
  const cores = {
    machine: (machineBusyMs() - cpuBefore.machine) / wallMs,
    instances: instances.map((instance, i) => (instance.cpuMs().process - cpuBefore.instances[i]) / wallMs),
    loadGenerator: (user + system) / 1000 / wallMs,
    postgres: (postgresCpuMs() - cpuBefore.postgres) / wallMs,
  };
  let problems = 0;
  let notCompleted = 0;
  let firstFailure: string | undefined;
  const latencies: DeltaLatency[] = [];
  const ownLatencies: DeltaLatency[] = [];
  const addedLatencies: DeltaLatency[] = [];
  let caughtUp = 0;
  for (const { streamed, followed, own, followedDeltas, attachedAt } of results) {
    const whole = followed.every((event, i) => event.id === i + 1) && followed.at(-1)?.data.type === "run_finished";
    const deltas = ofType(followed, "text_delta").map((event) => Number(String(event.delta).split("@")[0]));
    if (
      !whole ||
      JSON.stringify(followed) !== JSON.stringify(streamed) ||
      deltas.some((n, i) => n !== i) ||
      deltas.length !== DELTAS
    )
      problems++;
    if (followed.at(-1)?.data.status !== "completed") {
      notCompleted++;
      firstFailure ??= JSON.stringify([...ofType(streamed, "error"), streamed.at(-1)?.data, followed.at(-1)?.data]);
    }
    for (const [index, { ms }] of own) ownLatencies.push({ index, ms });
    for (const [index, { writtenAt, ms }] of followedDeltas) {
      if (writtenAt < attachedAt) {
        caughtUp++;
        continue;
      }
      latencies.push({ index, ms });
      if (own.has(index)) addedLatencies.push({ index, ms: ms - own.get(index)!.ms });
    }
  }
  return {
    wallMs,
    problems,
    notCompleted,
    latencies,
    ownLatencies,
    addedLatencies,
    attachMs: results.map(({ attachMs }) => attachMs),
    caughtUp,
    firstFailure,
    cores,
    eventLoopDelays,
  };
}

function report(title: string, result: LoadResult): void {
  const latency = (samples: number[]) => {
    const { median, p99, n } = summarize(samples);
    // On one instance a follower can attach after a run's first deltas were all written.
    if (n === 0) return "none read live";
    return `median ${ms(median)}, p99 ${ms(p99)} (${n})`;
  };
  console.log(
    `${title}: wall ${ms(result.wallMs)}; runs with lost, reordered or duplicated events: ${result.problems}; not completed: ${result.notCompleted}`,
  );
  if (result.firstFailure) console.log(`  the first run that did not complete: ${result.firstFailure}`);
  console.log(
    `  a follower's request to its first event: ${latency(result.attachMs)}; it read the ${result.caughtUp} deltas written before then from the store as it attached`,
  );
  const phases = (what: string, deltas: DeltaLatency[]) => {
    console.log(`  ${what}: ${latency(deltas.map(({ ms }) => ms))}`);
    console.log(
      `    in each run's first ${STARTING_DELTAS} deltas, while the runs start: ${latency(deltas.filter(({ index }) => index < STARTING_DELTAS).map(({ ms }) => ms))}`,
    );
    console.log(
      `    after them, every run streaming: ${latency(deltas.filter(({ index }) => index >= STARTING_DELTAS).map(({ ms }) => ms))}`,
    );
  };
  phases("a delta from the model server's write to the follower's read, once attached", result.latencies);
  phases("what the follower's read adds to the executing instance's, per delta", result.addedLatencies);
  phases(
    "a delta from the model server's write to the read of the run's own stream, on the executing instance",
    result.ownLatencies,
  );
  const percent = (cores: number) => `${Math.round(cores * 100)}%`;
  const { machine, instances, loadGenerator, postgres } = result.cores;
  console.log(
    `  CPU over the load, of one core: the machine ${percent(machine)} of ${availableParallelism() * 100}%, of which instances ${instances.map(percent).join(", ")}; ` +
      `PostgreSQL ${percent(postgres)}; load generator ${percent(loadGenerator)}`,
  );
  const delay = ({ p50, p99, max }: LoopDelay) => `${p50.toFixed(0)}/${p99.toFixed(0)}/${max.toFixed(0)} ms`;
  console.log(
    `  event-loop delay over the load (how late timers ran, median/p99/max; a delta waits it at each hop): instances ${result.eventLoopDelays.instances.map(delay).join(", ")}; ` +
      `load generator ${delay(result.eventLoopDelays.loadGenerator)}`,
  );
}

/**
 * CPU time the machine's cores spent busy (all processes, the kernel's interrupts included) or taken by the host
 * (steal), from /proc/stat; only idle and I/O wait are left out.
 */
function machineBusyMs(): number {
  const [, user, nice, system, , , irq, softirq, steal] = fs
    .readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** CPU time of every PostgreSQL process on the machine, the backends that have exited included (through the postmaster). */
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres")
        total += cpuMsOf(`/proc/${pid}/stat`, { children: true });
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** The same live load on two instances sharing PostgreSQL (followed across instances) and on one with SQLite. */
export async function benchScaleOut(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const stopPostgres = await startPostgres();
  const postgresUrl = freshPostgresUrl();
  // One person follows every run, a hundred or two per instance: more event streams than one person may open.
  const followsAll = { TOOLSMITH_MAX_OPEN_STREAMS: String(RUNS), NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "" };
  const env = { TOOLSMITH_DB_POOL: "20", TOOLSMITH_SECRET: "bench-secret-shared-by-the-instances", ...followsAll };
  const pair = [scriptedApp(model.url, env, postgresUrl), scriptedApp(model.url, env, postgresUrl)];
  const single = scriptedApp(model.url, followsAll, freshSqliteUrl());
  try {
    for (const instance of pair) await instance.start();
    await load(model, pair, "warm-up pg");
    const onPostgres = await load(model, pair, "pg");
    if (process.env.BENCH_DEBUG) console.log(pair.map((instance) => instance.output).join("\n----\n"));
    await Promise.all(pair.map((instance) => instance.stop()));
    await single.start();
    await load(model, [single], "warm-up sqlite");
    const onSqlite = await load(model, [single], "sqlite");
    console.log(
      `\n## Scale-out: ${RUNS} concurrent live runs (a tool call, then ${DELTAS} deltas ${DELTA_GAP_MS} ms apart)`,
    );
    report("two instances on one PostgreSQL, each run followed on the other instance", onPostgres);
    report("one instance on SQLite, each run followed on the same instance", onSqlite);
    console.log(`  PostgreSQL pair / SQLite single, wall time: ${(onPostgres.wallMs / onSqlite.wallMs).toFixed(2)}×`);
  } finally {
    await Promise.all([...pair, single].map((instance) => instance.stop()));
    await stopPostgres();
    await model.stop();
  }
}
