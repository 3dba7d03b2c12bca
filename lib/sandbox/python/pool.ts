import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { copyBack, copyTree } from "./workspace-copy";
import { emptyFolder, type FileStamp } from "@/lib/platform/file-tree";
import { config, type SandboxLimits } from "@/lib/settings/config";
import { debianPackages } from "@/scripts/debian-packages.mjs";
import { bubblewrapAvailable, bubblewrapMissing, jailArgs } from "../bubblewrap";
import type { FetchReply } from "../fetch-guard";
import {
  type DrawnImage,
  failure,
  NO_TOOL_CALLS,
  sandboxError,
  type FetchRequest,
  HostRequests,
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
  /** Serves the code's requests (requests, urllib) through the guard; without it, the code has no network. */
  fetch?: (request: FetchRequest, signal: AbortSignal) => Promise<FetchReply>;
  /** Called by another tool's code, whose process waits for it: it may use a slot beyond the pool's size. */
  nested?: boolean;
  /**
   * The conversation's workspace folder: the call sees a copy of it at /mnt/data, and what it changes there is
   * copied back before its outcome is answered. Without one, /mnt/data starts empty and nothing of it is kept.
   */
  workspace?: string;
  /** What the code reads as `secrets`: a placeholder per name; the values stay with `fetch` (lib/secrets/). */
  secrets?: Record<string, string>;
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
  /** Resident memory of each slot's processes (bubblewrap, the zygote, its children; shared pages once), in bytes. */
  residentBytes: number[];
}

/** Debian's interpreter, with the libraries' Debian packages: `python3` on PATH may be another without them. */
const PYTHON = "/usr/bin/python3";
/** What to install when Python is missing: the runtime's Debian packages, which `npm run setup` installs. */
const PACKAGES = (() => {
  const file = path.join(process.cwd(), "scripts", "debian-packages.txt");
  const list = fs.existsSync(file) ? debianPackages(fs.readFileSync(file, "utf8"), ["runtime"]).join(" ") : "";
  return list ? `npm run setup, or on Debian: apt-get install ${list}` : "npm run setup installs it";
})();
const SOURCE_DIR = path.join(process.cwd(), "lib", "sandbox", "python");
const SOURCES = ["zygote.py", "jail.py", "harness.py", "policy.py", "egress.py"];
/** Where the jail sees the pool's files (the Python sources, the host's socket). */
const INSIDE = "/sandbox";
/** Where a call finds its conversation's files, as code interpreters put them. */
const DATA_INSIDE = "/mnt/data";
/** Where the jail sees its slot's inbox, the files its child copies into /mnt/data (harness.py). */
const INBOX_INSIDE = "/mnt/inbox";
/** Past the deadline, the child gets this long before it is killed: a call that ends then still answers. */
const KILL_GRACE_MS = 100;
/** A zygote that has not reported a killed child gone by then is itself replaced. */
const EXIT_LIMIT_MS = 2000;
/** Beyond the zygote's own data, what a call's interpreter needs before the code's allowance starts. */
const CALL_OVERHEAD_BYTES = 32 * 1024 * 1024;
/** And beyond its address space: room for the mappings malloc and the libraries make as they go. */
const ADDRESS_OVERHEAD_BYTES = 256 * 1024 * 1024;
/** The writable /tmp of a slot's jail, emptied after each call. */
const SCRATCH_BYTES = 64 * 1024 * 1024;
/**
 * Slots beyond the pool's size for nested calls (a Python tool called from a tool's code): a caller's child waits
 * for its callee's, so callees queued behind their callers would wait out their deadlines. As many as a chain of
 * tools.call can be deep (lib/tools/call.ts' MAX_CALL_DEPTH); they end once idle.
 */
const NESTED_PROCESSES = 4;
/** What a person's screen gets of a call's figures, as base64 characters: the budget of an MCP tool's images. */
const IMAGE_CHARS = 512 * 1024;
/** A frame from a child: a tools.call or a request (its body base64), or the answer with its output and figures. */
const FRAME_BYTES =
  Math.max(config.maxRequestBytes, 2 * config.fetch.maxRequestBytes + 64 * 1024) +
  6 * (config.sandbox.outputChars * 2 + config.sandbox.consoleChars) +
  IMAGE_CHARS;
const NOBODY = 65534;
const [SIGKILL, SIGXCPU] = [9, 24];

interface Pending {
  job: PythonJob;
  resolve: (outcome: PythonOutcome | PythonVerdict) => void;
}

/** A child the zygote forked for the next call: confined, connected, waiting for its job. */
interface Spare {
  id: number;
  token: string;
  connection?: net.Socket;
}

interface Slot {
  zygote: ChildProcess;
  ready: Promise<void>;
  /** The zygote's own data and address space, over which a child's memory limits are counted; 0 until ready. */
  dataBytes: number;
  addressBytes: number;
  spare?: Spare;
  /** The call the slot's child runs, and its connection. */
  current?: Running<Pending> & { connection: net.Socket; copied?: Map<string, FileStamp> };
  /**
   * The child of the last call, until the zygote reports it gone and /tmp emptied: the spare (forked when the call
   * answered, so that the next call need not wait for a fork) gets its job only then.
   */
  previous?: number;
  exitTimer?: NodeJS.Timeout;
  /** The jail's /mnt/data as the host reaches it (through /proc/<pid>/root of a process inside); set once ready. */
  dataDir?: string;
  /** The host folder this slot's jail alone sees at /mnt/inbox: a workspace call's files, copied in by its child. */
  inbox: string;
  /** The copy of a workspace call's files into the inbox, while it runs. */
  copying?: Promise<unknown>;
  /** A workspace call that answered: its files are copied back once its child is gone, then it is answered. */
  collecting?: { workspace: string; copied: Map<string, FileStamp>; answer: (failure?: string) => void };
}

type ChildFrame =
  | { hello: string }
  | { call: unknown }
  | { http: { method: string; url: string; headers: Record<string, string>; body: string | null } }
  | { result: Record<string, unknown> };

/**
 * Python sandbox processes on the system's CPython. Each slot is a zygote in bubblewrap that has imported the
 * libraries and never runs tool code; each call runs in a child forked from it, which confines itself, fetches its
 * job over the pool's socket, answers and exits (lib/sandbox/python/zygote.py). The wall clock lives here: a call
 * that overruns or is cancelled has its child killed, and the next child is already waiting.
 */
export class PythonPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly terminations: TerminationCounts = { timeout: 0, cancelled: 0, memory: 0, crash: 0 };
  private readonly spares = new Map<string, Slot>();
  private nextJobId = 1;
  private closed = false;
  private host?: { dir: string; server: net.Server; listening: Promise<void> };
  private startFailure?: string;

  constructor(
    private readonly size: number,
    private readonly memoryBytes: number,
  ) {}

  /** Whether the server has what Python tools need; a zygote that could not start is said by `stats`. */
  available(): { ok: true } | { ok: false; why: string } {
    if (!bubblewrapAvailable()) return { ok: false, why: bubblewrapMissing("Python tools") };
    if (!fs.existsSync(PYTHON))
      return { ok: false, why: `Python is not installed on the server, so Python tools are off (${PACKAGES}).` };
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

  /** Start every slot ahead of the first call; rejects when a zygote cannot start (what to install, say). */
  async warm(): Promise<void> {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots.splice(0)) this.kill(slot);
    const host = this.host;
    this.host = undefined;
    if (host) {
      host.server.close();
      fs.rmSync(host.dir, { recursive: true, force: true });
    }
  }

  /** The pool's state; not available, and why, also while the last zygote failed to start and none serves. */
  stats(): PythonPoolStats {
    const serving = this.slots.some((slot) => slot.dataBytes > 0);
    const failed = this.startFailure && !serving ? { ok: false as const, why: this.startFailure } : undefined;
    const availability = failed ?? this.available();
    return {
      available: availability.ok,
      ...(availability.ok ? {} : { why: availability.why }),
      processes: this.slots.length,
      ready: this.slots.filter((slot) => slot.spare?.connection).length,
      busy: this.slots.filter((slot) => slot.current).length,
      queued: this.queue.length,
      terminated: { ...this.terminations },
      residentBytes: this.slots.map((slot) => residentBytes(slot.zygote.pid)),
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

  /**
   * Nested calls first, since their callers hold children waiting for them; calls from outside never take more
   * than the pool's size, so the slots beyond it are the nested calls' (started here when one waits).
   */
  private dispatch(): void {
    if (this.closed) return;
    while (this.slots.length < this.size) this.slots.push(this.spawn());
    const order = [...this.queue.filter((pending) => pending.job.nested), ...this.queue.filter((p) => !p.job.nested)];
    for (const pending of order) {
      const slot = this.slots.find(
        (candidate) => candidate.spare?.connection && !candidate.current && candidate.previous === undefined,
      );
      if (!slot) break;
      const outside = this.slots.filter((candidate) => candidate.current && !candidate.current.pending.job.nested);
      if (!pending.job.nested && outside.length >= this.size) continue;
      this.queue.splice(this.queue.indexOf(pending), 1);
      this.start(slot, pending);
    }
    const waitingNested = this.queue.filter((pending) => pending.job.nested).length;
    const starting = this.slots.filter((slot) => !slot.current && !slot.spare?.connection).length;
    const room = this.size + NESTED_PROCESSES - this.slots.length;
    for (let extra = Math.min(waitingNested - starting, room); extra > 0; extra--) this.slots.push(this.spawn());
  }

  private start(slot: Slot, pending: Pending): void {
    const spare = slot.spare!;
    const connection = spare.connection!;
    this.spares.delete(spare.token);
    slot.spare = undefined;
    slot.previous = spare.id;
    const { limits } = pending.job;
    const timer = setTimeout(() => this.fail(slot, "timeout"), limits.timeoutMs + KILL_GRACE_MS);
    slot.current = {
      id: spare.id,
      pending,
      timer,
      started: performance.now(),
      hostRequests: new HostRequests(),
      connection,
    };
    const { mode, code, input, requireEntryPoint, skipPolicy, uses, workspace, secrets } = pending.job;
    const wire = { outputChars: limits.outputChars, consoleChars: limits.consoleChars, imageChars: IMAGE_CHARS };
    const job = (inbox = false) =>
      send(connection, { mode, code, input, requireEntryPoint, skipPolicy, uses, limits: wire, inbox, secrets });
    if (!workspace) return job();
    const current = slot.current;
    // Awaited before the inbox is emptied (afterCall): a copy still going when the call ends leaves nothing there.
    const copying = copyTree(workspace, slot.inbox, current.hostRequests.signal);
    slot.copying = copying;
    copying.then(
      (copied) => {
        if (slot.current !== current) return;
        current.copied = copied;
        job(true);
      },
      (error: Error) => {
        if (slot.current === current)
          this.fail(slot, "crash", `The workspace could not be given to the call: ${error.message}`);
      },
    );
  }

  /** The socket every slot's children connect to, in a folder of the pool's that the jails see as INSIDE. */
  private hostSocket(): { dir: string; listening: Promise<void> } {
    if (this.host) return this.host;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-python-"));
    // The jail runs as nobody: the sources readable, the socket writable (connecting needs it), nothing else.
    fs.chmodSync(dir, 0o755);
    for (const file of SOURCES) fs.copyFileSync(path.join(SOURCE_DIR, file), path.join(dir, file));
    const server = net.createServer((connection) => this.onConnection(connection));
    server.unref();
    const socket = path.join(dir, "host.sock");
    const listening = new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socket, () => {
        fs.chmodSync(socket, 0o666);
        resolve();
      });
    });
    listening.catch(() => {});
    this.host = { dir, server, listening };
    return this.host;
  }

  /** A child's connection: its first frame names the spare it is; anything else is closed. */
  private onConnection(connection: net.Socket): void {
    connection.unref();
    connection.on("error", () => {});
    let slot: Slot | undefined;
    readFrames(connection, (frame, size) => {
      if (!slot) {
        slot = "hello" in frame ? this.spares.get(frame.hello) : undefined;
        if (!slot?.spare || slot.spare.connection) return connection.destroy();
        slot.spare.connection = connection;
        return this.dispatch();
      }
      const current = slot.current;
      if (!current || current.connection !== connection) return connection.destroy();
      if ("call" in frame) this.serveToolCall(current, frame.call, size);
      else if ("http" in frame) this.serveRequest(current, frame.http);
      else if ("result" in frame) this.onResult(slot, frame.result);
      else this.fail(slot, "crash", "The Python sandbox broke its channel.");
    }).catch(() => {
      // A frame over the limit or not JSON: a child that sends one is not running our harness any more.
      if (slot?.current?.connection === connection) this.fail(slot, "crash", "The Python sandbox broke its channel.");
      connection.destroy();
    });
  }

  /** One tools.call, through the job's handler with the job's signal. Every request is answered: the child waits. */
  private serveToolCall(current: NonNullable<Slot["current"]>, body: unknown, size: number): void {
    const reply = (answer: { ok: true; output: unknown } | { ok: false; error: string }) => {
      if (!current.hostRequests.signal.aborted) send(current.connection, capped(answer));
    };
    // At most what the API takes as a tool's input (a frame may be larger: a web request's body, an answer).
    if (size > config.maxRequestBytes)
      return reply({ ok: false, error: `The tools.call request is larger than ${config.maxRequestBytes} bytes.` });
    const request = toolRequest(body);
    if ("error" in request) return reply({ ok: false, error: request.error });
    const { callTool } = current.pending.job;
    if (!callTool) return reply({ ok: false, error: NO_TOOL_CALLS });
    callTool(request, current.hostRequests.signal).then(reply, (error: Error) =>
      reply({ ok: false, error: error.message }),
    );
  }

  /** One request of requests or urllib, through the guard the job's caller gave (lib/sandbox/index.ts). */
  private serveRequest(current: NonNullable<Slot["current"]>, request: Extract<ChildFrame, { http: unknown }>["http"]) {
    const reply = (answer: Record<string, unknown>) => {
      if (!current.hostRequests.signal.aborted) send(current.connection, answer);
    };
    const { fetch } = current.pending.job;
    if (!fetch) return reply({ ok: false, error: "This code has no network here." });
    const { method, url, headers, body } = request ?? {};
    if (typeof url !== "string" || typeof method !== "string")
      return reply({ ok: false, error: "A request needs a method and a URL." });
    const sent = { url, method, headers: headers ?? {}, body: body ? Buffer.from(body, "base64") : undefined };
    fetch(sent, current.hostRequests.signal).then(
      (answer) =>
        reply({
          ok: true,
          status: answer.status,
          url: answer.url,
          headers: answer.headers,
          body: answer.bytes.toString("base64"),
        }),
      (error: Error) => reply({ ok: false, error: error.message }),
    );
  }

  private onResult(slot: Slot, reported: Record<string, unknown>): void {
    const current = slot.current!;
    let outcome: PythonOutcome | PythonVerdict;
    try {
      outcome = outcomeOf(reported, current.pending.job.limits, performance.now() - current.started);
    } catch {
      // An answer our harness would not write (its JSON does not parse): the code wrote it.
      return this.fail(slot, "crash", "The Python sandbox broke its channel.");
    }
    const { workspace } = current.pending.job;
    if (workspace && current.copied && outcome.ok) {
      // Its files are read once its child is gone: nothing then changes them under the copy.
      slot.collecting = {
        workspace,
        copied: current.copied,
        answer: (failure) =>
          current.pending.resolve(
            failure
              ? ({
                  ...(outcome as SandboxOutcome),
                  ok: false,
                  error: { kind: "error", message: failure },
                } as PythonOutcome)
              : outcome,
          ),
      };
    }
    this.endCall(slot);
    if (!slot.collecting) current.pending.resolve(outcome);
  }

  /**
   * The call is over: its clock and host requests stop, and its child is killed, answered or not (a child that
   * answered and lingers would hold the slot); a zygote that does not report it gone in time is replaced. The next
   * call's child is forked now, not while this one ran, which it would have slowed on a machine of few cores.
   */
  private endCall(slot: Slot): void {
    const current = slot.current!;
    clearTimeout(current.timer);
    current.hostRequests.end();
    current.connection.destroy();
    slot.current = undefined;
    if (slot.previous === current.id) {
      slot.zygote.stdin?.write(`${JSON.stringify({ kill: current.id })}\n`);
      clearTimeout(slot.exitTimer);
      slot.exitTimer = setTimeout(() => this.replace(slot), EXIT_LIMIT_MS);
    }
    this.fork(slot);
  }

  /** End the slot's call with an error (its child is killed); the zygote reports it gone, then the spare serves. */
  private fail(slot: Slot, kind: keyof TerminationCounts, detail?: string): void {
    const current = slot.current;
    if (!current) return;
    this.terminations[kind]++;
    this.endCall(slot);
    const durationMs = performance.now() - current.started;
    current.pending.resolve(failure(sandboxError(kind, current.pending.job.limits, detail), durationMs));
  }

  /** Ask the zygote for the next call's child. */
  private fork(slot: Slot): void {
    if (this.closed || !this.slots.includes(slot)) return;
    const spare: Spare = { id: this.nextJobId++, token: randomBytes(16).toString("hex") };
    slot.spare = spare;
    this.spares.set(spare.token, slot);
    const command = {
      spare: spare.id,
      token: spare.token,
      dataBytes: slot.dataBytes + CALL_OVERHEAD_BYTES + this.memoryBytes,
      addressBytes: slot.addressBytes + ADDRESS_OVERHEAD_BYTES + this.memoryBytes,
      // The parent's clock ends a call; this ends a child that somehow outlived it.
      cpuSeconds: Math.ceil(config.sandbox.timeoutMs / 1000) + 5,
    };
    slot.zygote.stdin?.write(`${JSON.stringify(command)}\n`);
  }

  private spawn(): Slot {
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failStart = reject)));
    ready.catch(() => {});
    const host = this.hostSocket();
    // Its own folder, not one in the pool's (which every slot's jail sees): one caller's files reach only its slot.
    const inbox = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-inbox-"));
    fs.chmodSync(inbox, 0o755);
    const zygote = spawn("bwrap", this.jail(host.dir, inbox), {
      stdio: ["pipe", "pipe", "pipe"],
      env: {} as NodeJS.ProcessEnv,
      detached: true,
      // Root on the host would be root outside the namespaces too: the jail's processes are nobody's.
      ...(process.getuid?.() === 0 && { uid: NOBODY, gid: NOBODY }),
    });
    const slot: Slot = { zygote, ready, dataBytes: 0, addressBytes: 0, inbox };
    // Like the JavaScript pool's threads, the processes do not keep the server (or a test) alive.
    zygote.unref();
    for (const stream of [zygote.stdin, zygote.stdout, zygote.stderr]) (stream as net.Socket | null)?.unref?.();
    zygote.stdin?.on("error", () => {});
    let stderr = "";
    zygote.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    createInterface({ input: zygote.stdout! }).on("line", (line) => {
      let message: { ready?: boolean; exited?: number; code?: number | null; signal?: number | null };
      try {
        message = JSON.parse(line);
      } catch {
        return this.replace(slot);
      }
      if (message.ready) {
        const inside = descendants(zygote.pid)[0];
        // Without its /mnt/data the slot could not be emptied between callers: it does not serve.
        if (!inside) {
          failStart(new Error("The Python sandbox's process could not be found under its bubblewrap."));
          return this.replace(slot);
        }
        slot.dataDir = `/proc/${inside}/root${DATA_INSIDE}`;
        [slot.dataBytes, slot.addressBytes] = ["VmData", "VmSize"].map((field) => largest(zygote.pid, field));
        this.startFailure = undefined;
        markReady();
        host.listening.then(() => this.fork(slot));
      } else if (message.exited !== undefined) {
        this.onExited(slot, message.exited, message.code ?? null, message.signal ?? null);
      }
    });
    zygote.on("exit", () => {
      const why = startProblem(stderr);
      if (!slot.dataBytes) {
        this.startFailure = why;
        failStart(new Error(why));
      }
      if (slot.current) this.fail(slot, "crash", "The Python sandbox stopped unexpectedly.");
      this.remove(slot);
      // A zygote that never started is not restarted in a loop: the next call tries again.
      if (slot.dataBytes) setImmediate(() => this.dispatch());
      else this.failQueue(why);
    });
    return slot;
  }

  /** The child of call `id` is gone: a call it did not answer failed; the spare may take the next call. */
  private onExited(slot: Slot, id: number, code: number | null, signal: number | null): void {
    if (slot.spare?.id === id) {
      // The spare died before its job: it could not confine itself or connect, and neither will the next.
      this.startFailure = `The Python sandbox could not confine a process (exit code ${code}, signal ${signal}).`;
      this.remove(slot);
      return this.failQueue(this.startFailure);
    }
    const current = slot.current;
    if (current?.id === id) {
      // Its answer may still be on the way (the socket and the zygote's pipe are read apart): decided once read.
      const decide = () => {
        if (slot.current !== current) return;
        // SIGXCPU: the CPU limit (a child that outlived the parent's clock); SIGKILL: the kernel's out-of-memory
        // killer; else the interpreter crashed.
        const kind = signal === SIGXCPU ? "timeout" : signal === SIGKILL ? "memory" : "crash";
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        this.fail(slot, kind, `The Python sandbox process ended without an answer (${how}).`);
      };
      if (current.connection.closed) decide();
      else current.connection.once("close", decide);
    }
    if (slot.previous === id) {
      clearTimeout(slot.exitTimer);
      return void this.afterCall(slot).then(() => {
        slot.previous = undefined;
        // A slot beyond the pool's size (a nested call's) ends once nothing waits for one.
        if (this.slots.length > this.size && !slot.current && this.queue.length === 0) this.remove(slot);
        this.dispatch();
      });
    }
    this.dispatch();
  }

  /**
   * Between a call's child and the next: what a workspace call changed in /mnt/data goes back to its workspace, then
   * /mnt/data is emptied, whatever the call was, so that nothing of one caller's reaches the next. A slot whose
   * /mnt/data cannot be emptied is replaced.
   */
  private async afterCall(slot: Slot): Promise<void> {
    const collecting = slot.collecting;
    slot.collecting = undefined;
    await slot.copying?.catch(() => {});
    slot.copying = undefined;
    // Set once the zygote is ready, which a slot that has had a call is.
    const dataDir = slot.dataDir!;
    if (collecting) {
      const failure = await copyBack(dataDir, collecting.workspace, collecting.copied).then(
        () => undefined,
        (error: Error) => `The files the code wrote in /mnt/data could not be kept: ${error.message}`,
      );
      collecting.answer(failure);
    }
    await Promise.all([emptyFolder(dataDir), emptyFolder(slot.inbox)]).catch(() => this.replace(slot));
  }

  /** Calls waiting when no slot can serve them are answered with why, rather than left to wait for none. */
  private failQueue(why: string): void {
    if (this.slots.some((slot) => slot.spare?.connection || slot.current)) return;
    for (const pending of this.queue.splice(0)) pending.resolve(failure({ kind: "error", message: why }, 0));
  }

  /** Replace a slot whose zygote misbehaved, failing its call. */
  private replace(slot: Slot): void {
    if (slot.current) this.fail(slot, "crash", "The Python sandbox stopped unexpectedly.");
    slot.collecting?.answer("The Python sandbox stopped before the files the code wrote in /mnt/data were read.");
    slot.collecting = undefined;
    this.remove(slot);
    this.dispatch();
  }

  private remove(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    this.kill(slot);
  }

  private kill(slot: Slot): void {
    clearTimeout(slot.exitTimer);
    fs.rm(slot.inbox, { recursive: true, force: true }, () => {});
    if (slot.spare) this.spares.delete(slot.spare.token);
    slot.spare?.connection?.destroy();
    slot.current?.connection.destroy();
    slot.zygote.removeAllListeners();
    slot.zygote.stdout?.removeAllListeners();
    slot.zygote.on("error", () => {});
    // bubblewrap leads its own process group (detached): the group goes, and --die-with-parent takes the rest.
    try {
      process.kill(-slot.zygote.pid!, "SIGKILL");
    } catch {
      slot.zygote.kill("SIGKILL");
    }
  }

  private jail(dir: string, inbox: string): string[] {
    const settings = { policy: pythonPolicy, fetchRequestBytes: config.fetch.maxRequestBytes };
    return [
      ...jailArgs({ proc: false, scratchBytes: SCRATCH_BYTES }),
      "--unshare-user",
      "--uid",
      String(NOBODY),
      "--gid",
      String(NOBODY),
      "--disable-userns",
      // numpy finds its BLAS through Debian's alternatives; matplotlib reads its settings from /etc.
      ...["/etc/alternatives", "/etc/matplotlibrc", "/etc/fonts"].flatMap((file) => ["--ro-bind-try", file, file]),
      "--ro-bind",
      dir,
      INSIDE,
      "--ro-bind",
      inbox,
      INBOX_INSIDE,
      // The call's copy of its conversation's files: as large as a conversation's files may be.
      "--size",
      String(config.files.maxConversationBytes),
      "--tmpfs",
      DATA_INSIDE,
      "--remount-ro",
      "/dev",
      "--remount-ro",
      "/",
      ...Object.entries(JAIL_ENVIRONMENT).flatMap(([name, value]) => ["--setenv", name, value]),
      "--",
      PYTHON,
      "-I",
      "-B",
      `${INSIDE}/zygote.py`,
      `${INSIDE}/host.sock`,
      JSON.stringify(settings),
    ];
  }
}

const JAIL_ENVIRONMENT = {
  HOME: "/tmp",
  LANG: "C.UTF-8",
  MPLBACKEND: "Agg",
  MPLCONFIGDIR: "/tmp/matplotlib",
  // One thread each: a call may start none (jail.py), and the libraries would otherwise start them at import.
  OPENBLAS_NUM_THREADS: "1",
  OMP_NUM_THREADS: "1",
};

/** The frames of a connection, in order, each a 4-byte length then JSON; rejects on a frame over the limit. */
function readFrames(connection: net.Socket, onFrame: (frame: ChildFrame, size: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    connection.on("data", (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      while (buffered.length >= 4) {
        const size = buffered.readUInt32BE(0);
        if (size > FRAME_BYTES) return reject(new Error("frame over the limit"));
        if (buffered.length < 4 + size) return;
        const body = buffered.subarray(4, 4 + size);
        buffered = buffered.subarray(4 + size);
        let frame: ChildFrame;
        try {
          frame = JSON.parse(body.toString("utf8"));
        } catch {
          return reject(new Error("frame not JSON"));
        }
        if (typeof frame !== "object" || frame === null) return reject(new Error("frame not an object"));
        onFrame(frame, size);
      }
    });
    connection.on("close", () => resolve());
  });
}

function send(connection: net.Socket, message: unknown): void {
  const body = Buffer.from(JSON.stringify(message));
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  connection.write(Buffer.concat([header, body]));
}

/** A tools.call reply within what a frame carries: an output over it is replaced by an error saying so. */
function capped(answer: { ok: true; output: unknown } | { ok: false; error: string }) {
  const size = Buffer.byteLength(JSON.stringify(answer));
  const limit = 6 * config.toolOutputChars + 64 * 1024;
  if (size <= limit) return answer;
  return { ok: false, error: `The called tool's result is larger than the ${limit} bytes tools.call carries.` };
}

/** A request's body as the child sent it: `{ name, input }`, the name a string of a tool's length. */
export function toolRequest(request: unknown): ToolRequest | { error: string } {
  if (typeof request !== "object" || request === null || !("name" in request) || !("input" in request))
    return { error: "A tools.call request is { name, input }." };
  const { name, input } = request;
  if (typeof name !== "string" || name.length === 0 || name.length > 256)
    return { error: "tools.call's name must be a tool's name: a string of 1 to 256 characters." };
  return { name, input };
}

/** The child's answer as the sandbox's outcome: the policy's verdict, or the call's result with its figures. */
function outcomeOf(
  reported: Record<string, unknown>,
  limits: SandboxLimits,
  durationMs: number,
): PythonOutcome | PythonVerdict {
  if (reported.ok === true && "entry" in reported) return { ok: true, entry: (reported.entry as string) ?? null };
  const logs = Array.isArray(reported.logs) ? reported.logs.map(String) : [];
  const common = { logs, consoleTruncated: Boolean(reported.consoleTruncated), durationMs };
  if (Array.isArray(reported.violations))
    return { ok: false, violations: reported.violations as Violation[], ...common };
  if (reported.ok !== true) {
    const error = (reported.error ?? {}) as { kind?: string; message?: string };
    const kind = (["memory", "stack", "crash", "error"] as const).find((known) => known === error.kind) ?? "error";
    return { ok: false, error: sandboxError(kind, limits, String(error.message ?? "")), ...common };
  }
  const images: DrawnImage[] = (Array.isArray(reported.images) ? reported.images : [])
    .filter((data): data is string => typeof data === "string")
    .map((data) => ({ mimeType: "image/png", data }));
  const shown = images.length > 0 ? { images } : {};
  const text = typeof reported.text === "string" ? { text: reported.text } : {};
  if (reported.outputTruncated)
    return { ok: true, output: String(reported.output), outputTruncated: true, ...text, ...shown, ...common };
  return { ok: true, output: JSON.parse(String(reported.json ?? "null")), ...text, ...shown, ...common };
}

/** Why a zygote stopped before it was ready, in words an operator can act on. */
export function startProblem(stderr: string): string {
  const missing = /ModuleNotFoundError: No module named '([\w.]+)'/.exec(stderr)?.[1];
  if (missing) return `Python's ${missing} is not installed on the server, so Python tools are off (${PACKAGES}).`;
  const last = stderr.trim().split("\n").slice(-3).join(" ").slice(0, 500);
  return `The Python sandbox could not start${last ? `: ${last}` : "."}`;
}

/** A memory figure of the interpreter under bubblewrap: the descendant's whose figure is largest. */
function largest(pid: number | undefined, field: string): number {
  return Math.max(0, ...descendants(pid).map((child) => statusField(child, field)));
}

/**
 * Resident memory of a slot, from /proc: bubblewrap, the zygote and its children, each counted by its proportional
 * share (Pss), since a child shares most of its pages with the zygote it was forked from.
 */
function residentBytes(pid: number | undefined): number {
  return [...(pid ? [pid] : []), ...descendants(pid)].reduce((sum, child) => sum + proportional(child), 0);
}

function proportional(pid: number): number {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return statusField(pid, "VmRSS");
  }
}

function statusField(pid: number, field: string): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function descendants(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    return children.flatMap((child) => [Number(child), ...descendants(Number(child))]);
  } catch {
    return [];
  }
}
