import { Worker } from "node:worker_threads";
import path from "node:path";
import { config } from "@/lib/settings/config";
import { processWide } from "@/lib/platform/process-wide";

/** A document as the XML thread receives it: `key` changes whenever the content does (it keys the parse cache). */
export interface QueryDocument {
  key: string;
  path: string;
  content: string;
}

export interface QueryJob {
  query: string;
  variables: Record<string, unknown>;
  documents: QueryDocument[];
  maxResults: number;
  outputChars: number;
}

export interface QueryAnswer {
  results: string[];
  truncated: boolean;
  documentsRead: number;
}

/** A document or query the engine refuses, or that overran its limits: the message says which and why. */
export const XmlError = processWide("XmlError", () => class XmlError extends Error {});

type JobBody = { kind: "check"; content: string } | ({ kind: "query" } & QueryJob);
type Job = JobBody & { id: number };
type Answer = { id: number } & (({ ok: true; text?: string } & Partial<QueryAnswer>) | { ok: false; error: string });

interface Pending {
  job: Job;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

const CANCELLED = "The call was cancelled: the run was stopped.";

// Loaded by Node as is (Next bundles lib/ but not this file), like the sandbox's worker.
const WORKER_FILE = path.join(process.cwd(), "lib", "librarian", "xml-worker.mjs");

/**
 * One thread for XML: parsing and XQuery are synchronous and a query can run for ever, so they leave the event
 * loop, and the wall clock lives here. A job that overruns, runs out of memory or is cancelled gets the thread
 * terminated (the next job starts a new one); jobs otherwise run one after another on a warm thread.
 */
export class XmlEngine {
  constructor(private readonly limits: { timeoutMs: number; memoryMb: number } = config.librarian) {}

  private worker?: Worker;
  private current?: Pending & { timer: NodeJS.Timeout };
  private readonly queue: Pending[] = [];
  private nextId = 1;

  /** The document's text for the full-text index, or an XmlError saying why the XML is refused. */
  async check(content: string, signal?: AbortSignal): Promise<string> {
    return (await this.submit({ kind: "check", content }, signal)).text ?? "";
  }

  async query(job: QueryJob, signal?: AbortSignal): Promise<QueryAnswer> {
    const answer = await this.submit({ kind: "query", ...job }, signal);
    return {
      results: answer.results ?? [],
      truncated: answer.truncated ?? false,
      documentsRead: answer.documentsRead ?? 0,
    };
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private submit(body: JobBody, signal?: AbortSignal) {
    return new Promise<Extract<Answer, { ok: true }>>((resolve, reject) => {
      if (signal?.aborted) return reject(new XmlError(CANCELLED));
      // The signal is a run's, which outlives many calls: each call lets go of it when it settles.
      const onAbort = () => this.abandon(pending, CANCELLED);
      const settled = () => signal?.removeEventListener("abort", onAbort);
      const pending: Pending = {
        job: { ...body, id: this.nextId++ },
        resolve: (answer) => {
          settled();
          if (answer.ok) resolve(answer);
          else reject(new XmlError(answer.error));
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.current || this.queue.length === 0) return;
    const pending = this.queue.shift()!;
    const { timeoutMs } = this.limits;
    const timer = setTimeout(
      () =>
        this.abandon(
          pending,
          `The ${pending.job.kind === "check" ? "document" : "query"} took longer than ${timeoutMs} ms and was stopped.`,
        ),
      timeoutMs,
    );
    this.current = { ...pending, timer };
    (this.worker ??= this.spawn()).postMessage(pending.job);
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_FILE, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 32 },
    });
    worker.unref();
    worker.on("message", (answer: Answer | { ready: true }) => {
      if (!("id" in answer) || answer.id !== this.current?.job.id) return;
      const { resolve, timer } = this.current;
      clearTimeout(timer);
      this.current = undefined;
      resolve(answer);
      this.dispatch();
    });
    worker.on("error", (error) => {
      if (this.current)
        this.abandon(
          this.current,
          /memory/i.test(error.message)
            ? `The query needed more than ${this.limits.memoryMb} MB and was stopped.`
            : `The XML engine failed: ${error.message}`,
        );
    });
    worker.on("exit", () => {
      if (this.worker !== worker) return;
      if (this.current) this.abandon(this.current, "The XML engine stopped unexpectedly.");
      this.worker = undefined;
    });
    return worker;
  }

  /** End a job with an error: a queued one leaves the queue; the running one takes its thread with it. */
  private abandon(pending: Pending, message: string): void {
    const queued = this.queue.indexOf(pending);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      pending.reject(new XmlError(message));
      return;
    }
    if (this.current?.job.id !== pending.job.id) return;
    clearTimeout(this.current.timer);
    this.current = undefined;
    const worker = this.worker;
    this.worker = undefined;
    const deliver = () => {
      pending.reject(new XmlError(message));
      this.dispatch();
    };
    if (worker) worker.terminate().then(deliver, deliver);
    else deliver();
  }
}

/** The process's XML thread. */
export const xmlEngine: XmlEngine = processWide("xmlEngine", () => new XmlEngine());
