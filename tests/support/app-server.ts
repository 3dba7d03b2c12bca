import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { freshDatabaseUrl, prepareDatabase, testProvider } from "./database";

const ROOT = process.cwd();
/** USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on Linux on every architecture we run on. */
export const CLOCK_TICKS_PER_SECOND = 100;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export { tempDataDir } from "./database";

/**
 * CPU time in ms from a /proc stat file (a process's or a thread's): utime + stime, and with `children` the
 * waited-for children's too (cutime + cstime).
 */
export function cpuMsOf(statFile: string, { children = false } = {}): number {
  const fields = fs.readFileSync(statFile, "utf8").split(") ")[1].split(" ");
  const ticks = [11, 12, ...(children ? [13, 14] : [])].reduce((sum, field) => sum + Number(fields[field]), 0);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * The production server (`server.mjs`, from the build that `npm test` makes first), on its own port and
 * database, in its own process group so that stopping it stops everything it started.
 */
export class AppServer {
  private child?: ChildProcess;
  url = "";
  output = "";

  /** `cwd`: the checkout whose build (and server.mjs) to serve, this one by default (a benchmark's baseline, another). */
  constructor(
    private readonly env: Record<string, string>,
    private readonly options: { cwd?: string } = {},
  ) {}

  /** Start the server, on `port` if given (else a free one), its database migrated first unless `migrated` says it is. */
  async start({ port, migrated = false }: { port?: number; migrated?: boolean } = {}): Promise<void> {
    // Instances of one PostgreSQL database must share the key that signs identity cookies.
    const secret = testProvider === "postgresql" ? { TOOLSMITH_SECRET: "test-secret-shared-by-the-instances" } : {};
    const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...secret, ...this.env };
    if (!migrated) await prepareDatabase(env.DATABASE_URL!, env);
    port ??= await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.child = spawn(process.execPath, ["server.mjs"], {
      cwd: this.options.cwd ?? ROOT,
      env: { ...env, PORT: String(port), TOOLSMITH_LISTEN_HOST: "127.0.0.1" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout!.on("data", (chunk) => (this.output += chunk));
    this.child.stderr!.on("data", (chunk) => (this.output += chunk));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`The server exited: ${this.output}`);
      try {
        // Its own words first: on a port in use, another server would answer.
        if (this.output.includes("Toolsmith is serving on") && (await fetch(`${this.url}/api/health`)).ok) return;
      } catch {
        // not listening yet
      }
      // Often: each of the many servers the suites start would otherwise wait 100 ms on average once it is up.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`The server did not start: ${this.output}`);
  }

  /** The server's process id (its process group's too), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The server's resident memory now, in bytes, read from /proc without disturbing it. */
  residentBytes(): number {
    const status = fs.readFileSync(`/proc/${this.child!.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  }

  /**
   * CPU time the server has used so far, in milliseconds (from /proc: utime + stime): all its threads, and its
   * main thread alone, where JavaScript runs and which bounds its throughput.
   */
  cpuMs(): { process: number; mainThread: number } {
    const pid = this.child!.pid!;
    return { process: cpuMsOf(`/proc/${pid}/stat`), mainThread: cpuMsOf(`/proc/${pid}/task/${pid}/stat`) };
  }

  /** The server's command line as the kernel has it: after a restart with its Node flags (server-runtime.mjs), those. */
  commandLine(): string[] {
    return fs.readFileSync(`/proc/${this.child!.pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  }

  /**
   * The server's memory in use (its heap after a full collection when it runs with --expose-gc), in bytes, and how
   * late its event loop ran timers since the last call (resolution 10 ms), in ms.
   */
  async stats(): Promise<{
    rss: number;
    heapUsed: number;
    eventLoopDelayMs: { p50: number; p99: number; max: number };
  }> {
    const before = this.output.length;
    process.kill(this.child!.pid!, "SIGUSR2");
    for (;;) {
      const line = /toolsmith-stats (\{.*\})/.exec(this.output.slice(before));
      if (line) return JSON.parse(line[1]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Kill the server and everything it started at once, as a crash or `kill -9` would: nothing runs to clean up. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid!, "SIGKILL");
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid!, "SIGTERM");
    const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The production server on its own database (a fresh one of the provider under test by default), talking to a
 * scripted model server. Instances given the same database URL share it, as instances behind a load balancer do.
 * `options.cwd` serves another checkout's build (AppServer's).
 */
export function scriptedApp(
  modelUrl: string,
  env: Record<string, string> = {},
  databaseUrl = freshDatabaseUrl(),
  options: { cwd?: string } = {},
): AppServer {
  return new AppServer(
    {
      DATABASE_URL: databaseUrl,
      OPENAI_BASE_URL: modelUrl,
      OPENAI_API_KEY: "test-key",
      TOOLSMITH_MODEL: "scripted-model",
      TOOLSMITH_MODEL_RETRIES: "0",
      // Suites and benchmarks send far more from one address than a person; the rate-limit tests set their own.
      TOOLSMITH_RATE_CONVERSATIONS_PER_MINUTE: "100000",
      TOOLSMITH_RATE_MESSAGES_PER_MINUTE: "100000",
      // The suites start many servers and few call Python: its processes start at the first Python call.
      TOOLSMITH_PYTHON_WARM: "0",
      // Each test uses a few routes: loading them all at start would cost each server seconds of CPU.
      TOOLSMITH_PRELOAD_ROUTES: "0",
      ...env,
    },
    options,
  );
}
