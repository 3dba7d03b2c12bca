import { Worker } from "node:worker_threads";
import path from "node:path";
import type { SandboxLimits } from "@/lib/config";

export type RunMode = "tool" | "compile" | "snippet";

export interface SandboxJob {
  mode: RunMode;
  code: string;
  input?: unknown;
  limits: SandboxLimits;
}

export type SandboxErrorKind = "error" | "timeout" | "memory" | "stack" | "crash";

export interface SandboxOutcome {
  ok: boolean;
  output?: unknown;
  /** The output went over the output limit: `output` is then the start of its JSON text. */
  outputTruncated?: boolean;
  error?: { kind: SandboxErrorKind; message: string };
  logs: string[];
  consoleTruncated: boolean;
  durationMs: number;
}

export interface FetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}
export type FetchHandler = (request: FetchRequest) => Promise<unknown>;

interface Pending {
  job: SandboxJob;
  onFetch: FetchHandler;
  resolve: (outcome: SandboxOutcome) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  current?: { id: number; pending: Pending; timer: NodeJS.Timeout; started: number };
}

// Resolved from the project root: Next bundles lib/ but not this file, which Node loads as is.
const WORKER_FILE = path.join(process.cwd(), "lib", "sandbox", "worker.mjs");
/** Past the deadline, the in-VM interrupt handler gets this long to stop the code before the thread is killed. */
const KILL_GRACE_MS = 100;

/**
 * A fixed set of worker threads, each running one QuickJS call at a time. The wall clock lives here, in the
 * parent: a call that overruns (a slow built-in, a retried out-of-memory) gets its thread terminated and replaced,
 * which is the only bound that does not depend on the code cooperating.
 */
export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextJobId = 1;

  constructor(private readonly size: number) {}

  run(job: SandboxJob, onFetch: FetchHandler): Promise<SandboxOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ job, onFetch, resolve });
      this.dispatch();
    });
  }

  /** Start the threads ahead of the first call. */
  async warm(): Promise<void> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => !candidate.current);
      if (!slot && this.slots.length < this.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private start(slot: Slot, pending: Pending): void {
    const id = this.nextJobId++;
    const started = performance.now();
    const timer = setTimeout(
      () => this.fail(slot, { kind: "timeout", message: `Timed out after ${pending.job.limits.timeoutMs} ms.` }),
      pending.job.limits.timeoutMs + KILL_GRACE_MS,
    );
    slot.current = { id, pending, timer, started };
    // Posting before the worker is ready is fine: messages queue until its listener is attached.
    slot.worker.postMessage({ type: "job", job: { id, ...pending.job } });
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_FILE, {
      // QuickJS's own heap lives in WASM memory and has its own limit; this bounds the thread's JS heap.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    let markReady!: () => void;
    const slot: Slot = { worker, ready: new Promise((resolve) => (markReady = resolve)) };
    worker.on("message", (message) => this.onMessage(slot, message, markReady));
    worker.on("error", (error) =>
      this.fail(slot, { kind: /memory/i.test(error.message) ? "memory" : "crash", message: `Sandbox failed: ${error.message}` }),
    );
    worker.on("exit", () => this.fail(slot, { kind: "crash", message: "Sandbox stopped unexpectedly." }));
    return slot;
  }

  private onMessage(slot: Slot, message: WorkerMessage, markReady: () => void): void {
    if (message.type === "ready") return markReady();
    const current = slot.current;
    if (!current || message.id !== current.id) return;
    if (message.type === "fetch") {
      current.pending.onFetch(message.request).then(
        (response) => slot.worker.postMessage({ type: "fetch-reply", fetchId: message.fetchId, response }),
        (error: Error) => slot.worker.postMessage({ type: "fetch-reply", fetchId: message.fetchId, error: error.message }),
      );
      return;
    }
    clearTimeout(current.timer);
    slot.current = undefined;
    const { type: _type, id: _id, retire, ...outcome } = message;
    if (retire) this.retire(slot);
    current.pending.resolve(outcome);
    this.dispatch();
  }

  private retire(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => {});
    void slot.worker.terminate();
  }

  /** End the slot's current call with an error, and replace its thread. */
  private fail(slot: Slot, error: { kind: SandboxErrorKind; message: string }): void {
    if (!this.slots.includes(slot)) return;
    const current = slot.current;
    slot.current = undefined;
    this.retire(slot);
    if (current) {
      clearTimeout(current.timer);
      current.pending.resolve({
        ok: false,
        error,
        logs: [],
        consoleTruncated: false,
        durationMs: performance.now() - current.started,
      });
    }
    this.dispatch();
  }
}

type WorkerMessage =
  | { type: "ready" }
  | { type: "fetch"; id: number; fetchId: number; request: FetchRequest }
  | ({ type: "result"; id: number; retire: boolean } & SandboxOutcome);
