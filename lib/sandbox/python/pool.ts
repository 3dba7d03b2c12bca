import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SandboxLimits } from "@/lib/settings/config";
import { bubblewrapAvailable, bubblewrapMissing, jailArgs } from "../bubblewrap";
import {
  failure,
  sandboxError,
  untilSettled,
  type RunMode,
  type SandboxOutcome,
  type TerminationCounts,
} from "../pool";
import type { Violation } from "../policy";
import { pythonPolicy } from "../policy";

export type PythonMode = RunMode | "check";

export interface PythonJob {
  mode: PythonMode;
  code: string;
  input?: unknown;
  requireEntryPoint?: boolean;
  skipPolicy?: boolean;
  limits: SandboxLimits;
}

/** A call's outcome, or the policy's verdict when the code was refused before it ran. */
export type PythonOutcome =
  | SandboxOutcome
  | { ok: false; violations: Violation[]; logs: string[]; consoleTruncated: boolean; durationMs: number };
/** What a check answers: the code passes (naming its entry point) or the violations. */
export type PythonVerdict = { ok: true; entry: string | null } | { ok: false; violations: Violation[] };

export interface PythonPoolStats {
  available: boolean;
  why?: string;
  processes: number;
  ready: number;
  busy: number;
  queued: number;
  terminated: TerminationCounts;
  /** Processes replaced because a call changed something the next call would have seen. */
  recycled: number;
  /** Resident memory of each process (with bubblewrap's), in bytes. */
  residentBytes: number[];
}

const ROOT = process.cwd();
const PYTHON_DIR = path.join(ROOT, "lib", "sandbox", "python");
const PYODIDE_DIR = installedPyodide();
/** The interpreter's own data (Node, V8, Pyodide's code and its memory image), over which a call gets its limit. */
const RUNTIME_DATA_BYTES = 320 * 1024 * 1024;
/** Past the deadline, the process gets this long before it is killed: a call that ends then still answers. */
const KILL_GRACE_MS = 100;
/**
 * After its answer, a process checks that the call left nothing behind (milliseconds, normally). One that has not
 * settled by then is running something the call left (a promise callback that never ends) and is replaced.
 */
const SETTLE_LIMIT_MS = 2000;
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission")
  ? "--permission"
  : "--experimental-permission";

interface Pending {
  job: PythonJob;
  resolve: (outcome: PythonOutcome | PythonVerdict) => void;
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  isReady: boolean;
  /** Answered its call, and is checking that nothing of it is left before it takes another. */
  settling: boolean;
  settleTimer?: NodeJS.Timeout;
  current?: { id: number; pending: Pending; timer: NodeJS.Timeout; started: number };
}

type WorkerMessage =
  | { type: "ready" }
  | { type: "snapshot"; bytes: Uint8Array }
  | { type: "settled"; retire: boolean }
  | ({ type: "result"; id: number } & Record<string, unknown>);

/**
 * Python sandbox processes, each one Pyodide interpreter in bubblewrap. The wall clock lives here: a call that
 * overruns or is cancelled gets its process killed and replaced, the only bound that does not depend on the code
 * cooperating (a loop inside C code never returns to the interpreter). A process whose call left anything the next
 * call could see is replaced too.
 */
export class PythonPool {
  private readonly workers: Worker[] = [];
  private readonly queue: Pending[] = [];
  private readonly terminations: TerminationCounts = { timeout: 0, cancelled: 0, memory: 0, crash: 0 };
  private recycled = 0;
  private nextJobId = 1;
  private closed = false;
  private snapshotReady?: Promise<void>;

  constructor(
    private readonly size: number,
    private readonly memoryBytes: number,
    private readonly snapshotFile = defaultSnapshotFile(),
  ) {}

  available(): { ok: true } | { ok: false; why: string } {
    if (!bubblewrapAvailable()) return { ok: false, why: bubblewrapMissing("Python tools") };
    if (!PYODIDE_DIR) return { ok: false, why: "The pyodide package is not installed, so Python tools are off." };
    return { ok: true };
  }

  run(job: PythonJob, signal?: AbortSignal): Promise<PythonOutcome | PythonVerdict> {
    if (signal?.aborted) return Promise.resolve(failure(sandboxError("cancelled", job.limits), 0));
    return new Promise((resolve) => {
      const pending: Pending = { job, resolve: untilSettled(signal, () => this.cancel(pending), resolve) };
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Start every process ahead of the first call (making the memory image first, if there is none yet). */
  async warm(): Promise<void> {
    this.fill();
    await Promise.all(this.workers.map((worker) => worker.ready));
  }

  /**
   * At start-up: make the memory image if there is none yet (about 3 s, once per installation), so that a first
   * call starts its process from it in about a second. Processes otherwise start with the first Python call: a
   * server whose people write no Python holds no interpreter.
   */
  async prepare(): Promise<void> {
    if (!fs.existsSync(this.snapshotFile)) await this.warm();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const worker of this.workers.splice(0)) this.kill(worker);
  }

  stats(): PythonPoolStats {
    const availability = this.available();
    return {
      available: availability.ok,
      ...(availability.ok ? {} : { why: availability.why }),
      processes: this.workers.length,
      ready: this.workers.filter((worker) => worker.isReady).length,
      busy: this.workers.filter((worker) => worker.current).length,
      queued: this.queue.length,
      terminated: { ...this.terminations },
      recycled: this.recycled,
      residentBytes: this.workers.map((worker) => residentBytes(worker.child?.pid)),
    };
  }

  private cancel(pending: Pending): void {
    const queued = this.queue.indexOf(pending);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      pending.resolve(failure(sandboxError("cancelled", pending.job.limits), 0));
      return;
    }
    const worker = this.workers.find((candidate) => candidate.current?.pending === pending);
    if (worker) this.fail(worker, "cancelled");
  }

  /** Spawn processes up to the pool's size; the first of a new memory image makes it, the others wait for it. */
  private fill(): void {
    if (this.closed) return;
    if (!this.snapshotReady && !fs.existsSync(this.snapshotFile)) {
      const maker = this.spawn(false);
      this.workers.push(maker);
      this.snapshotReady = maker.ready.catch(() => {
        this.snapshotReady = undefined;
      });
    }
    this.snapshotReady ??= Promise.resolve();
    while (this.workers.length < this.size) {
      const worker = this.spawn(true);
      this.workers.push(worker);
    }
  }

  private dispatch(): void {
    this.fill();
    while (this.queue.length > 0) {
      const worker = this.workers.find((candidate) => candidate.isReady && !candidate.current && !candidate.settling);
      if (!worker) return;
      this.start(worker, this.queue.shift()!);
    }
  }

  private start(worker: Worker, pending: Pending): void {
    const id = this.nextJobId++;
    const { limits } = pending.job;
    const timer = setTimeout(() => this.fail(worker, "timeout"), limits.timeoutMs + KILL_GRACE_MS);
    worker.current = { id, pending, timer, started: performance.now() };
    const { mode, code, input, requireEntryPoint, skipPolicy } = pending.job;
    const wire = { outputChars: limits.outputChars, consoleChars: limits.consoleChars };
    worker.child.send({ type: "job", job: { id, mode, code, input, requireEntryPoint, skipPolicy, limits: wire } });
  }

  /** One process in its jail. With `fromSnapshot`, it waits for the memory image and starts from it. */
  private spawn(fromSnapshot: boolean): Worker {
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failStart = reject)));
    ready.catch(() => {});
    const worker = { ready, isReady: false, settling: false } as Worker;
    const launch = () => {
      if (this.closed) return failStart(new Error("The Python pool is closed."));
      const args = this.jail(fromSnapshot);
      const child = spawn("bwrap", args, {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        serialization: "advanced",
        // bubblewrap clears the environment inside the jail (--clearenv); outside, it needs none either.
        env: {} as NodeJS.ProcessEnv,
        detached: true,
      });
      worker.child = child;
      // Like the JavaScript pool's threads, the processes do not keep the server (or a test) alive.
      child.unref();
      child.channel?.unref();
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
      child.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          worker.isReady = true;
          markReady();
          this.dispatch();
        } else if (message.type === "snapshot" && !fromSnapshot && !worker.isReady) {
          saveSnapshot(this.snapshotFile, message.bytes);
        } else if (message.type === "result") {
          this.onResult(worker, message);
        } else if (message.type === "settled") {
          clearTimeout(worker.settleTimer);
          worker.settling = false;
          if (message.retire) {
            this.recycled++;
            this.remove(worker);
          }
          this.dispatch();
        }
      });
      child.on("exit", () => {
        failStart(new Error(`A Python sandbox process exited before it was ready: ${stderr.trim()}`));
        this.fail(worker, "crash", "The Python sandbox stopped unexpectedly.");
      });
    };
    if (fromSnapshot && this.snapshotReady) void this.snapshotReady.then(launch);
    else launch();
    return worker;
  }

  private jail(fromSnapshot: boolean): string[] {
    const node = fs.realpathSync(process.execPath);
    const snapshot = fromSnapshot && fs.existsSync(this.snapshotFile) ? this.snapshotFile : "";
    const readable = [PYODIDE_DIR, PYTHON_DIR, ...(snapshot ? [snapshot] : [])];
    return [
      ...jailArgs(),
      ...readable.flatMap((dir) => ["--ro-bind", dir, dir]),
      "--ro-bind",
      node,
      node,
      "--setenv",
      "NODE_CHANNEL_FD",
      "3",
      "--setenv",
      "NODE_CHANNEL_SERIALIZATION_MODE",
      "advanced",
      "--",
      "prlimit",
      `--data=${RUNTIME_DATA_BYTES + this.memoryBytes}`,
      "--core=0",
      "--",
      node,
      PERMISSION_FLAG,
      ...readable.map((dir) => `--allow-fs-read=${dir}`),
      "--disallow-code-generation-from-strings",
      "--max-old-space-size=128",
      "--no-warnings",
      path.join(PYTHON_DIR, "worker.mjs"),
      PYODIDE_DIR,
      path.join(PYTHON_DIR, "harness.py"),
      JSON.stringify(pythonPolicy),
      String(this.memoryBytes),
      snapshot,
    ];
  }

  private onResult(worker: Worker, message: Extract<WorkerMessage, { type: "result" }>): void {
    const current = worker.current;
    if (!current || message.id !== current.id) return;
    const { type: _type, id: _id, ...reported } = message;
    clearTimeout(current.timer);
    worker.current = undefined;
    worker.settling = true;
    worker.settleTimer = setTimeout(() => {
      this.recycled++;
      this.remove(worker);
      this.dispatch();
    }, SETTLE_LIMIT_MS);
    const outcome = reported as unknown as PythonOutcome | PythonVerdict;
    if (!outcome.ok && "error" in outcome)
      outcome.error = sandboxError(outcome.error.kind, current.pending.job.limits, outcome.error.message);
    current.pending.resolve(outcome);
  }

  /** End the worker's current call with an error, kill the process and start another. */
  private fail(worker: Worker, kind: keyof TerminationCounts, detail?: string): void {
    if (!this.workers.includes(worker)) return;
    const current = worker.current;
    // Killed first, answered next, replaced last: nothing of the call runs once its caller hears that it ended, and
    // starting the next process does not delay the answer.
    this.remove(worker);
    if (current) {
      this.terminations[kind]++;
      clearTimeout(current.timer);
      worker.current = undefined;
      const durationMs = performance.now() - current.started;
      current.pending.resolve(failure(sandboxError(kind, current.pending.job.limits, detail), durationMs));
    }
    setImmediate(() => this.dispatch());
  }

  private remove(worker: Worker): void {
    const index = this.workers.indexOf(worker);
    if (index !== -1) this.workers.splice(index, 1);
    this.kill(worker);
  }

  private kill(worker: Worker): void {
    clearTimeout(worker.settleTimer);
    const child = worker.child;
    if (!child) return;
    child.removeAllListeners();
    child.on("error", () => {});
    // bubblewrap leads its own process group (detached): the group goes, and --die-with-parent takes the rest.
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }
}

function installedPyodide(): string {
  try {
    return fs.realpathSync(path.join(ROOT, "node_modules", "pyodide"));
  } catch {
    return "";
  }
}

/** Where the memory image lives: per Pyodide version and policy, since the image holds the preloaded modules. */
function defaultSnapshotFile(): string {
  let version = "unknown";
  try {
    version = JSON.parse(fs.readFileSync(path.join(PYODIDE_DIR, "package.json"), "utf8")).version;
  } catch {
    // no pyodide: the pool reports itself unavailable
  }
  const key = createHash("sha256")
    .update(JSON.stringify([pythonPolicy.allowedModules, pythonPolicy.preload]))
    .digest("hex")
    .slice(0, 12);
  return path.join(ROOT, "node_modules", ".cache", "toolsmith", `pyodide-${version}-${key}.snapshot`);
}

function saveSnapshot(file: string, bytes: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, bytes);
  fs.renameSync(temporary, file);
}

/** Resident memory of a process and its descendants (bubblewrap, then the interpreter), from /proc. */
function residentBytes(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return rss + children.reduce((sum, child) => sum + residentBytes(Number(child)), 0);
  } catch {
    return 0;
  }
}
