import { Worker } from "node:worker_threads";
import path from "node:path";
import type { SandboxLimits } from "@/lib/settings/config";

export type RunMode = "tool" | "compile" | "snippet";

export interface SandboxJob {
  mode: RunMode;
  code: string;
  input?: unknown;
  limits: SandboxLimits;
  /** Called by another tool's code (tools.call), whose thread waits for it: it may use a thread beyond the pool's size. */
  nested?: boolean;
  /** What the code reads as `secrets`: a placeholder per name; the values stay with the host's fetch (lib/secrets/). */
  secrets?: Record<string, string>;
}

export type SandboxErrorKind = "error" | "timeout" | "memory" | "stack" | "crash" | "cancelled";
export interface SandboxError {
  kind: SandboxErrorKind;
  message: string;
}

interface OutcomeCommon {
  logs: string[];
  consoleTruncated: boolean;
  durationMs: number;
}
export type SandboxOutcome =
  | (OutcomeCommon & {
      ok: true;
      output: unknown;
      /** The output went over the output limit: `output` is then the start of its JSON text. */
      outputTruncated?: boolean;
      /** The value as its language prints it, where JSON loses what it shows: Python's str() (212.0, True). */
      text?: string;
      /** Figures the code drew (matplotlib's), for people to see beside the output. */
      images?: DrawnImage[];
    })
  | (OutcomeCommon & { ok: false; error: SandboxError });

/** A figure code drew, as PNG in base64: the contract's ToolImage, which the layers above carry. */
export interface DrawnImage {
  mimeType: "image/png";
  data: string;
}

export interface FetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Text from JavaScript, bytes from Python. */
  body?: string | Buffer;
}
/** Serves a fetch of the running code; `signal` aborts when the call ends, whichever way it ends. */
export type FetchHandler = (request: FetchRequest, signal: AbortSignal) => Promise<unknown>;

/** A `tools.call(name, input)` of the running code. */
export interface ToolRequest {
  name: string;
  input: unknown;
}
/** Serves it: the called tool's result as the code reads it (`ok`, then `output` or `error`). */
export type ToolCallHandler = (
  request: ToolRequest,
  signal: AbortSignal,
) => Promise<{ ok: true; output: unknown } | { ok: false; error: string }>;

/** What code asks of the conversation's workspace: JavaScript's `files.list`, `files.read` and `files.write`. */
export type FilesRequest =
  | { op: "list"; path?: string }
  | { op: "read"; path: string; encoding?: string }
  | { op: "write"; path: string; content: string; encoding?: string };
export type FilesHandler = (request: FilesRequest, signal: AbortSignal) => Promise<unknown>;

/**
 * The conversation's workspace as code sees it: its folder, which Python sees a copy of at /mnt/data (what it
 * changes there is copied back), and the handler of JavaScript's `files`.
 */
export interface CodeWorkspace {
  folder: string;
  files: FilesHandler;
}

/** What code gets where there is no conversation (the API's calls): an empty /mnt/data, and no `files`. */
export const NO_WORKSPACE = "files is not available here: the call is not in a conversation, which holds the files.";

/** What the host serves the running code: its fetches, its calls of other tools and its files, where allowed. */
export interface HostServices {
  fetch: FetchHandler;
  callTool?: ToolCallHandler;
  files?: FilesHandler;
}

/** What a tools.call gets where no caller serves one (a run_code snippet, an example run without a run). */
export const NO_TOOL_CALLS = "tools.call is not available here: only a stored tool may call other tools.";

/** Calls whose thread the pool terminated, by reason: the others end on their own and keep their thread. */
export type TerminationCounts = Record<"timeout" | "cancelled" | "memory" | "crash", number>;

interface Pending {
  job: SandboxJob;
  host: HostServices;
  resolve: (outcome: SandboxOutcome) => void;
}

/** A call a pool's thread or process is running, and what ends with it. */
export interface Running<P = Pending> {
  id: number;
  pending: P;
  /** The wall clock: the call's deadline, past which its thread or process is killed. */
  timer: NodeJS.Timeout;
  started: number;
  hostRequests: HostRequests;
}

/**
 * Aborts a call's host requests (fetches, tool calls, files) when the call ends, whichever way it ends. Its controller
 * is made at the first request: most calls send none, and making one and aborting it (a DOMException, with its stack)
 * was about half of what the pool cost the server's thread per call in its profile (docs/performance.md).
 */
export class HostRequests {
  private controller?: AbortController;
  private ended = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort();
    }
    return this.controller.signal;
  }

  end(): void {
    this.ended = true;
    this.controller?.abort();
  }
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  current?: Running;
}

// Resolved from the project root: Next bundles lib/ but not this file, which Node loads as is.
const WORKER_FILE = path.join(process.cwd(), "lib", "sandbox", "worker.mjs");
/**
 * Threads a pool may have for nested calls, as a multiple of its size: a caller's thread waits for its callee's, so
 * callees that had to queue behind their callers would wait out their deadlines. Extra threads end once idle.
 */
const NESTED_HEADROOM = 5;
/** Past the deadline, the in-VM interrupt handler gets this long to stop the code before the thread is killed. */
const KILL_GRACE_MS = 100;

/**
 * A fixed set of worker threads, each running one QuickJS call at a time. The wall clock lives here, in the
 * parent: a call that overruns (a slow built-in, a retried out-of-memory) or is cancelled gets its thread
 * terminated and replaced, which is the only bound that does not depend on the code cooperating.
 */
export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly terminations: TerminationCounts = { timeout: 0, cancelled: 0, memory: 0, crash: 0 };
  private nextJobId = 1;

  constructor(
    private readonly size: number,
    private readonly workerFile = WORKER_FILE,
  ) {}

  /** Run a job; aborting `signal` ends it at once, terminating its thread if it has started. */
  run(job: SandboxJob, host: HostServices, signal?: AbortSignal): Promise<SandboxOutcome> {
    if (signal?.aborted) return Promise.resolve(failure(sandboxError("cancelled", job.limits), 0));
    return new Promise((resolve) => {
      const pending: Pending = { job, host, resolve: untilSettled(signal, () => this.cancel(pending), resolve) };
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Start the threads ahead of the first call; rejects if one dies before it is ready. */
  async warm(): Promise<void> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  stats(): { threads: number; busy: number; queued: number; terminated: TerminationCounts } {
    return {
      threads: this.slots.length,
      busy: this.slots.filter((slot) => slot.current).length,
      queued: this.queue.length,
      terminated: { ...this.terminations },
    };
  }

  private cancel(pending: Pending): void {
    const queued = this.queue.indexOf(pending);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      pending.resolve(failure(sandboxError("cancelled", pending.job.limits), 0));
      return;
    }
    const slot = this.slots.find((candidate) => candidate.current?.pending === pending);
    if (slot) this.fail(slot, "cancelled");
  }

  private dispatch(): void {
    for (let index = 0; index < this.queue.length;) {
      const pending = this.queue[index];
      let slot = this.slots.find((candidate) => !candidate.current);
      const threads = pending.job.nested ? this.size * NESTED_HEADROOM : this.size;
      if (!slot && this.slots.length < threads) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (!slot) {
        index++;
        continue;
      }
      this.queue.splice(index, 1);
      this.start(slot, pending);
    }
  }

  private start(slot: Slot, pending: Pending): void {
    const id = this.nextJobId++;
    const timer = setTimeout(() => this.fail(slot, "timeout"), pending.job.limits.timeoutMs + KILL_GRACE_MS);
    slot.current = { id, pending, timer, started: performance.now(), hostRequests: new HostRequests() };
    // Posting before the worker is ready is fine: messages queue until its listener is attached.
    slot.worker.postMessage({ type: "job", job: { id, ...pending.job } });
  }

  private spawn(): Slot {
    const worker = new Worker(this.workerFile, {
      // QuickJS's own heap lives in WASM memory and has its own limit; this bounds the thread's JS heap.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failStart = reject)));
    // A thread that dies before it is ready fails `warm`; dispatching never waits on `ready`.
    ready.catch(() => {});
    const slot: Slot = { worker, ready };
    worker.on("message", (message: WorkerMessage) =>
      message.type === "ready" ? markReady() : this.onMessage(slot, message),
    );
    worker.on("error", (error) => {
      failStart(error);
      this.fail(slot, /memory/i.test(error.message) ? "memory" : "crash", `The sandbox failed: ${error.message}`);
    });
    worker.on("exit", (code) => {
      failStart(new Error(`A sandbox thread exited (code ${code}) before it was ready.`));
      this.fail(slot, "crash", "The sandbox stopped unexpectedly.");
    });
    return slot;
  }

  private onMessage(slot: Slot, message: Exclude<WorkerMessage, { type: "ready" }>): void {
    const current = slot.current;
    if (!current || message.id !== current.id) return;
    if (message.type === "host") {
      const { host } = current.pending;
      const signal = current.hostRequests.signal;
      const served =
        message.kind === "fetch"
          ? host.fetch(message.payload as FetchRequest, signal)
          : message.kind === "files"
            ? host.files
              ? host.files(message.payload as FilesRequest, signal)
              : Promise.reject(new Error(NO_WORKSPACE))
            : host.callTool
              ? host.callTool(message.payload as ToolRequest, signal)
              : Promise.reject(new Error(NO_TOOL_CALLS));
      const reply = (answer: { response: unknown } | { error: string }) =>
        slot.worker.postMessage({ type: "host-reply", requestId: message.requestId, ...answer });
      served.then(
        (response) => reply({ response }),
        (error: Error) => reply({ error: error.message }),
      );
      return;
    }
    const { type: _type, id: _id, retire, ...reported } = message;
    if (retire) this.retire(slot);
    this.settle(
      slot,
      current,
      reported.ok
        ? reported
        : { ...reported, error: sandboxError(reported.error.kind, current.pending.job.limits, reported.error.message) },
    );
    this.dispatch();
  }

  /** Take the thread out of the pool and terminate it; resolves when it is gone. */
  private retire(slot: Slot): Promise<number> {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => {});
    return slot.worker.terminate();
  }

  private settle(slot: Slot, current: Running, outcome: SandboxOutcome): void {
    clearTimeout(current.timer);
    current.hostRequests.end();
    slot.current = undefined;
    // A thread beyond the pool's size (a nested call's) ends once nothing waits for it.
    if (this.slots.length > this.size && this.queue.length === 0 && this.slots.includes(slot)) void this.retire(slot);
    current.pending.resolve(outcome);
  }

  /**
   * End the slot's current call with an error and replace its thread. The call's outcome is delivered once the
   * thread is gone, so nothing of the call runs after its caller hears that it ended.
   */
  private fail(slot: Slot, kind: keyof TerminationCounts, detail?: string): void {
    if (!this.slots.includes(slot)) return;
    const current = slot.current;
    const gone = this.retire(slot);
    if (current) {
      this.terminations[kind]++;
      const error = sandboxError(kind, current.pending.job.limits, detail);
      const durationMs = performance.now() - current.started;
      clearTimeout(current.timer);
      current.hostRequests.end();
      slot.current = undefined;
      const deliver = () => current.pending.resolve(failure(error, durationMs));
      gone.then(deliver, deliver);
    }
    this.dispatch();
  }
}

/** A call that failed without output of its own: a limit, a cancellation, a crash. */
export function failure(error: SandboxError, durationMs: number): SandboxOutcome {
  return { ok: false, error, logs: [], consoleTruncated: false, durationMs };
}

/**
 * `resolve`, which also lets go of `signal` (a run's, which outlives many calls) when the call settles; until then,
 * aborting the signal calls `onAbort`.
 */
export function untilSettled<T>(
  signal: AbortSignal | undefined,
  onAbort: () => void,
  resolve: (value: T) => void,
): (value: T) => void {
  signal?.addEventListener("abort", onAbort, { once: true });
  return (value) => {
    signal?.removeEventListener("abort", onAbort);
    resolve(value);
  };
}

/** The one place that words a sandbox failure: limits become sentences the model (and the trace) can act on. */
export function sandboxError(kind: SandboxErrorKind, limits: SandboxLimits, detail = ""): SandboxError {
  switch (kind) {
    case "timeout":
      return { kind, message: `The code ran longer than the ${limits.timeoutMs} ms limit and was stopped.` };
    case "memory":
      return {
        kind,
        message: `The code used more than the ${limits.memoryBytes / 1024 / 1024} MB memory limit and was stopped.`,
      };
    case "stack":
      return { kind, message: "The code recursed too deeply (stack overflow)." };
    case "cancelled":
      return { kind, message: "The call was cancelled: the run was stopped." };
    default:
      return { kind, message: detail };
  }
}

type WorkerMessage =
  | { type: "ready" }
  | { type: "host"; kind: "fetch" | "tool" | "files"; id: number; requestId: number; payload: unknown }
  | ({ type: "result"; id: number; retire: boolean } & SandboxOutcome);
