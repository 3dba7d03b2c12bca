import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Readable, Writable } from "node:stream";
import path from "node:path";
import { config, type SandboxLimits } from "@/lib/settings/config";
import { bubblewrapAvailable, bubblewrapMissing, jailArgs } from "../bubblewrap";
import {
  failure,
  NO_TOOL_CALLS,
  sandboxError,
  type Running,
  untilSettled,
  type RunMode,
  type SandboxOutcome,
  type TerminationCounts,
  type ToolCallHandler,
  type ToolRequest,
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
  /** A check's: the tools the code says it calls; every tools.call must name one of them. */
  uses?: readonly string[];
  limits: SandboxLimits;
  /** Serves the code's tools.call; without it, each is refused. */
  callTool?: ToolCallHandler;
  /** Called by another tool's code, whose process waits for it: it may use a process beyond the pool's size. */
  nested?: boolean;
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
/**
 * Processes beyond the pool's size for nested calls (a Python tool called from a tool's code): a caller's process waits
 * for its callee's, so callees queued behind their callers would wait out their deadlines. As many as a chain of
 * tools.call can be deep (lib/tools/call.ts' MAX_CALL_DEPTH); they end once idle.
 */
const NESTED_PROCESSES = 4;
/**
 * tools.call's channel (fd 4), both ways: a request is a tool's input, at most what the API takes in a body; a reply
 * the called tool's output, which the call path has capped to TOOLSMITH_TOOL_OUTPUT_CHARS characters (at most 6
 * bytes each as JSON), with room for the envelope. A name is at most what any tool's is, MCP tools' included.
 */
const HOST_LIMITS = {
  requestBytes: config.maxRequestBytes,
  replyBytes: 6 * config.toolOutputChars + 64 * 1024,
  nameChars: 256,
};
/** A frame's header from the process: the job's id and the request's length, 4 bytes each. */
const FRAME_HEADER_BYTES = 8;
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
  current?: Running<Pending>;
  /** tools.call's channel, and the bytes read from it that do not make a whole frame yet. */
  tools?: Readable & Writable;
  unframed: Buffer;
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

  /**
   * Nested calls first, since their callers hold processes waiting for them; calls from outside never take more than
   * the pool's size, so the processes beyond it are the nested calls' (started here when one waits, up to
   * NESTED_PROCESSES).
   */
  private dispatch(): void {
    this.fill();
    const order = [...this.queue.filter((pending) => pending.job.nested), ...this.queue.filter((p) => !p.job.nested)];
    for (const pending of order) {
      const worker = this.workers.find((candidate) => candidate.isReady && !candidate.current && !candidate.settling);
      if (!worker) break;
      const outside = this.workers.filter((candidate) => candidate.current && !candidate.current.pending.job.nested);
      if (!pending.job.nested && outside.length >= this.size) continue;
      this.queue.splice(this.queue.indexOf(pending), 1);
      this.start(worker, pending);
    }
    const waitingNested = this.queue.filter((pending) => pending.job.nested).length;
    const starting = this.workers.filter((worker) => !worker.isReady).length;
    const room = this.size + NESTED_PROCESSES - this.workers.length;
    for (let extra = Math.min(waitingNested - starting, room); extra > 0; extra--) this.workers.push(this.spawn(true));
  }

  private start(worker: Worker, pending: Pending): void {
    const id = this.nextJobId++;
    const { limits } = pending.job;
    const timer = setTimeout(() => this.fail(worker, "timeout"), limits.timeoutMs + KILL_GRACE_MS);
    worker.current = { id, pending, timer, started: performance.now(), hostRequests: new AbortController() };
    const { mode, code, input, requireEntryPoint, skipPolicy, uses } = pending.job;
    const wire = { outputChars: limits.outputChars, consoleChars: limits.consoleChars };
    const job = { id, mode, code, input, requireEntryPoint, skipPolicy, uses, limits: wire };
    worker.child.send({ type: "job", job });
  }

  /** Frames from the process's tools.call channel: each is served in turn (the process waits for each reply). */
  private onToolBytes(worker: Worker, chunk: Buffer): void {
    worker.unframed = Buffer.concat([worker.unframed, chunk]);
    while (worker.unframed.length >= FRAME_HEADER_BYTES) {
      const jobId = worker.unframed.readUInt32BE(0);
      const size = worker.unframed.readUInt32BE(4);
      // worker.mjs refuses larger requests itself: a process that sends one is not the one we started.
      if (size > HOST_LIMITS.requestBytes) return this.fail(worker, "crash", "The Python sandbox broke its channel.");
      if (worker.unframed.length < FRAME_HEADER_BYTES + size) return;
      const body = worker.unframed.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + size);
      worker.unframed = worker.unframed.subarray(FRAME_HEADER_BYTES + size);
      this.serveToolCall(worker, jobId, body);
    }
  }

  /**
   * One tools.call: only for the job the process runs now, in the shape and size it must have, through the job's
   * handler with the job's signal. Every request is answered, since the process waits; a reply for a job that ended
   * meanwhile is not sent (its process was killed, or answered and moved on).
   */
  private serveToolCall(worker: Worker, jobId: number, body: Buffer): void {
    const current = worker.current;
    const reply = (answer: { ok: true; output: unknown } | { ok: false; error: string }) => {
      if (worker.current !== current || !this.workers.includes(worker)) return;
      worker.tools?.write(replyFrame(answer));
    };
    if (!current || current.id !== jobId)
      return reply({ ok: false, error: "tools.call works only while its tool runs." });
    const request = toolRequest(body);
    if ("error" in request) return reply({ ok: false, error: request.error });
    const { callTool } = current.pending.job;
    if (!callTool) return reply({ ok: false, error: NO_TOOL_CALLS });
    callTool(request, current.hostRequests.signal).then(
      (answer) => reply(answer),
      (error: Error) => reply({ ok: false, error: error.message }),
    );
  }

  /** One process in its jail. With `fromSnapshot`, it waits for the memory image and starts from it. */
  private spawn(fromSnapshot: boolean): Worker {
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failStart = reject)));
    ready.catch(() => {});
    const worker = { ready, isReady: false, settling: false, unframed: Buffer.alloc(0) } as Worker;
    const launch = () => {
      if (this.closed) return failStart(new Error("The Python pool is closed."));
      const args = this.jail(fromSnapshot);
      const child = spawn("bwrap", args, {
        // fd 4: tools.call's channel, a socket pair whose end in the process blocks (worker.mjs waits on it).
        stdio: ["ignore", "ignore", "pipe", "ipc", "pipe"],
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
      worker.tools = child.stdio[4] as Readable & Writable;
      worker.tools.on("data", (chunk: Buffer) => this.onToolBytes(worker, chunk));
      worker.tools.on("error", () => {});
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
          } else if (this.workers.length > this.size && this.queue.length === 0) {
            // A process beyond the pool's size (a nested call's) ends once nothing waits for one.
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
      JSON.stringify({ requestBytes: HOST_LIMITS.requestBytes, replyBytes: HOST_LIMITS.replyBytes }),
      snapshot,
    ];
  }

  private onResult(worker: Worker, message: Extract<WorkerMessage, { type: "result" }>): void {
    const current = worker.current;
    if (!current || message.id !== current.id) return;
    const { type: _type, id: _id, ...reported } = message;
    clearTimeout(current.timer);
    current.hostRequests.abort();
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
      current.hostRequests.abort();
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
    // Frames still buffered from a killed process are not served.
    worker.tools?.removeAllListeners("data");
    worker.tools?.destroy();
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

/** A request's body as the process sent it: JSON `{ name, input }`, the name a string of a tool's length. */
export function toolRequest(body: Buffer): ToolRequest | { error: string } {
  let request: unknown;
  try {
    request = JSON.parse(body.toString("utf8"));
  } catch {
    return { error: "The tools.call request is not JSON." };
  }
  if (typeof request !== "object" || request === null || !("name" in request) || !("input" in request))
    return { error: "A tools.call request is { name, input }." };
  const { name, input } = request;
  if (typeof name !== "string" || name.length === 0 || name.length > HOST_LIMITS.nameChars)
    return { error: `tools.call's name must be a tool's name: a string of 1 to ${HOST_LIMITS.nameChars} characters.` };
  return { name, input };
}

/** A reply to the process: its length, then its JSON; an output over the limit is replaced by an error saying so. */
function replyFrame(answer: { ok: true; output: unknown } | { ok: false; error: string }): Buffer {
  let body = Buffer.from(JSON.stringify(answer));
  if (body.length > HOST_LIMITS.replyBytes) {
    const error = `The called tool's result is larger than the ${HOST_LIMITS.replyBytes} bytes tools.call carries.`;
    body = Buffer.from(JSON.stringify({ ok: false, error }));
  }
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
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
