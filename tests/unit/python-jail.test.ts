import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PythonOutcome, PythonPool } from "@/lib/sandbox/python/pool";
import { FIND_CHANNEL } from "../support/python-escapes";

// The jail around a Python call, tested as an attacker would: with skipPolicy the first layer is off whole (no check,
// all builtins, any import), so that what holds is the process's own confinement (bubblewrap, rlimits, seccomp) and
// what the host accepts.
process.env.TOOLSMITH_TOOL_TIMEOUT_MS = "3000";
process.env.TOOLSMITH_TOOL_MEMORY_MB = "64";
process.env.TOOLSMITH_PYTHON_WORKERS = "2";
// A secret of the host's environment, which no jail may see.
const CANARY = "TOOLSMITH_JAIL_CANARY";
process.env[CANARY] = "the host's secret";

type Sandbox = typeof import("@/lib/sandbox");
type Config = (typeof import("@/lib/settings/config"))["config"];
let sandbox: Sandbox;
let config: Config;
let Pool: typeof PythonPool;
/** The pool of one the attacks run on: each test's next call lands on the same slot. */
let pool: PythonPool;

beforeAll(async () => {
  sandbox = await import("@/lib/sandbox");
  ({ config } = await import("@/lib/settings/config"));
  ({ PythonPool: Pool } = await import("@/lib/sandbox/python/pool"));
  pool = new Pool(1, config.sandbox.memoryBytes);
  await Promise.all([pool.warm(), sandbox.pythonPool().warm()]);
});
afterAll(async () => {
  await pool?.close();
  await sandbox?.pythonPool().close();
});

/** `attempt(action)` answers ["ok", its repr] or ["failed", the error]. */
const PRELUDE = `def attempt(action):
    try:
        return ["ok", repr(action())]
    except BaseException as error:
        return ["failed", type(error).__name__ + ": " + str(error)]

`;
const EPERM = ["failed", "PermissionError: [Errno 1] Operation not permitted"];
const limitsOf = (timeoutMs?: number) => ({ ...config.sandbox, ...(timeoutMs && { timeoutMs }) });

/** Run attacker's code on `on` (the pool of one by default), the policy off. */
function attack(
  code: string,
  { timeoutMs, signal, on = pool }: { timeoutMs?: number; signal?: AbortSignal; on?: PythonPool } = {},
) {
  return on.run(
    { mode: "tool", code: PRELUDE + code, input: {}, skipPolicy: true, limits: limitsOf(timeoutMs) },
    signal,
  ) as Promise<PythonOutcome>;
}

const outputOf = (outcome: PythonOutcome) => {
  expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
  return (outcome as { output: unknown }).output as Record<string, unknown>;
};

/** The next ordinary call is served, and how long it took. */
async function nextIsServed(on: PythonPool = pool): Promise<number> {
  const started = performance.now();
  const outcome = await on.run({ mode: "tool", code: "def run(inputs):\n    return 'next'\n", limits: limitsOf() });
  expect(outcome).toMatchObject({ ok: true, output: "next" });
  return performance.now() - started;
}

/** The pools' zygotes: this process's descendants that run zygote.py in the interpreter, under bubblewrap. */
function zygotes(): number[] {
  const found: number[] = [];
  const walk = (pid: number) => {
    let children: string[] = [];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    } catch {
      return;
    }
    for (const child of children.map(Number)) {
      try {
        // The zygote itself, not its children (forked from it, they have its command line): bubblewrap's child.
        const [command, ...args] = fs.readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0");
        const parent = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
        if (command === "/usr/bin/python3" && args.includes("/sandbox/zygote.py") && parent.endsWith("bwrap"))
          found.push(child);
      } catch {}
      walk(child);
    }
  };
  walk(process.pid);
  return found;
}

describe("no new process", () => {
  it("refuses fork, system, subprocess, posix_spawn and threads", async () => {
    const code = `
import os, subprocess, threading

def run(inputs):
    return {
        "fork": attempt(os.fork),
        "system": attempt(lambda: os.system("echo ran > /tmp/ran")),
        "subprocess": attempt(lambda: subprocess.run(["/bin/true"])),
        "posix_spawn": attempt(lambda: os.posix_spawn("/bin/true", ["true"], {})),
        "thread": attempt(lambda: threading.Thread(target=print).start()),
        "ran": os.path.exists("/tmp/ran"),
    }
`;
    expect(outputOf(await attack(code))).toEqual({
      fork: EPERM,
      // system() could not start its shell: 127, as when /bin/sh is missing.
      system: ["ok", String(127 << 8)],
      subprocess: EPERM,
      posix_spawn: ["failed", "PermissionError: [Errno 1] Operation not permitted: '/bin/true'"],
      thread: ["failed", "RuntimeError: can't start new thread"],
      ran: false,
    });
  });

  it("ends a fork bomb at its first fork, and serves the next call at once", async () => {
    const started = performance.now();
    const outcome = await attack("import os\n\ndef run(inputs):\n    while True:\n        os.fork()\n");
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: "error", message: expect.stringContaining("PermissionError: [Errno 1] Operation not permitted") },
    });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await nextIsServed()).toBeLessThan(500);
  });
});

describe("a call whose process dies, or is ended by the host", () => {
  // Their own pools (one's zygote is stopped for a moment, the other's children crash): the pool the other tests
  // share must not depend on what these leave.
  let crashing: PythonPool;
  let crashingZygote: number;
  let stalling: PythonPool;
  beforeAll(async () => {
    const before = new Set(zygotes());
    crashing = new Pool(1, config.sandbox.memoryBytes);
    await crashing.warm();
    [crashingZygote] = zygotes().filter((pid) => !before.has(pid));
    stalling = new Pool(1, config.sandbox.memoryBytes);
    await stalling.warm();
  });
  afterAll(async () => {
    await crashing?.close();
    await stalling?.close();
  });
  const within = <T>(promise: Promise<T>, ms = 3000) =>
    Promise.race([
      promise,
      new Promise<string>((resolve) => setTimeout(() => resolve(`no answer within ${ms} ms`), ms)),
    ]);
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const X32_FORK = "import ctypes\n\ndef run(inputs):\n    return ctypes.CDLL(None).syscall(0x40000000 | 57)\n";

  it("fails as a crash when it makes a system call of another ABI (x32's fork): the filter kills it", async () => {
    expect(await within(attack(X32_FORK, { on: crashing }))).toMatchObject({
      ok: false,
      error: { kind: "crash", message: "The Python sandbox process ended without an answer (signal 31)." },
    });
    expect(await within(nextIsServed(crashing))).toBeLessThan(500);
  });

  it("kills a call stopped while its zygote was busy, and serves the next call at once", async () => {
    // Ending a call, the host writes the zygote a fork line (the next call's spare) and a kill line. A zygote busy or
    // descheduled for a moment (stopped here, to make the moment certain) finds both in its pipe: zygote.py's
    // sys.stdin.buffer.readline() reads them in one go, the fork line is handled and the kill line stays in the
    // buffer, which select() does not see. The child is never killed: the slot waits for its exit, is replaced 2 s
    // later (EXIT_LIMIT_MS), and the next call waits for a new zygote. (Since the fork line is written as a call ends,
    // right before the kill, the time-limit and Stop tests below see the same without any stop.)
    expect(crashingZygote).toEqual(expect.any(Number));
    // The spare forked when the last call ended connected first: the call starts at once, and is running when stopped.
    await expect.poll(() => crashing.stats().ready).toBe(1);
    const stop = new AbortController();
    process.kill(crashingZygote, "SIGSTOP");
    try {
      const spinning = attack("def run(inputs):\n    while True:\n        pass\n", {
        on: crashing,
        signal: stop.signal,
      });
      await pause(50);
      stop.abort();
      expect(await spinning).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    } finally {
      process.kill(crashingZygote, "SIGCONT");
    }
    expect(await within(nextIsServed(crashing), 6000)).toBeLessThan(1000);
  });

  it("serves every call after a crash, time after time", async () => {
    // After a crash the host writes the zygote two lines at once: the fork line for the next spare and the kill line
    // for the dead child. Whatever the zygote makes of the pair, every later call is served. (Before the fork line
    // moved to the end of a call, the kill came first and the fork line was the one left in zygote.py's buffer: the
    // slot never served again.)
    const crash = "import os\n\ndef run(inputs):\n    os.abort()\n";
    const plain = (value: string) =>
      stalling.run({ mode: "tool", code: `def run(inputs):\n    return '${value}'\n`, limits: limitsOf() });
    for (let round = 0; round < 5; round++) {
      expect(await within(attack(crash, { on: stalling })), `round ${round}`).toMatchObject({
        ok: false,
        error: { kind: "crash", message: "The Python sandbox process ended without an answer (signal 6)." },
      });
      for (const call of ["first", "second"])
        expect(await within(plain(call), 2000), `round ${round}, the ${call} call after the crash`).toMatchObject({
          ok: true,
          output: call,
        });
    }
  });
});

describe("no network of its own", () => {
  it("opens no socket, connects nowhere, and sees no interface", async () => {
    const code = `
import os, socket, stat
${FIND_CHANNEL}
def run(inputs):
    again = channel()
    return {
        "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "inet6": attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)),
        "unix": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        "pair": attempt(socket.socketpair),
        "host again": attempt(lambda: again.connect("/sandbox/host.sock")),
        "interfaces": attempt(socket.if_nameindex),
    }
`;
    expect(outputOf(await attack(code))).toEqual({
      inet: EPERM,
      inet6: EPERM,
      unix: EPERM,
      pair: EPERM,
      "host again": EPERM,
      interfaces: EPERM,
    });
    // Seen from the host: the jails' network namespaces hold the loopback interface alone.
    const interpreters = zygotes();
    expect(interpreters.length).toBeGreaterThanOrEqual(1);
    for (const pid of interpreters) {
      const names = fs
        .readFileSync(`/proc/${pid}/net/dev`, "utf8")
        .split("\n")
        .slice(2)
        .map((line) => line.split(":")[0].trim())
        .filter(Boolean);
      expect(names, `zygote ${pid}`).toEqual(["lo"]);
    }
  });
});

describe("the file system", () => {
  it("has no /proc, and / /usr /etc /dev /dev/shm /sandbox read-only; /tmp is writable", async () => {
    const code = `
import os

def write(path):
    with open(path, "w") as file:
        file.write("x")
    return path

def run(inputs):
    found = {path: attempt(lambda: write(path + "/planted")) for path in ["", "/usr", "/etc", "/dev", "/dev/shm", "/sandbox", "/tmp"]}
    found["proc"] = [os.path.exists("/proc"), "proc" in os.listdir("/"), attempt(lambda: os.listdir("/proc"))]
    found["uid"] = [os.getuid(), os.getgid()]
    return found
`;
    const readOnly = (path: string) => ["failed", `OSError: [Errno 30] Read-only file system: '${path}/planted'`];
    expect(outputOf(await attack(code))).toEqual({
      "": readOnly(""),
      "/usr": readOnly("/usr"),
      "/etc": readOnly("/etc"),
      "/dev": readOnly("/dev"),
      "/dev/shm": readOnly("/dev/shm"),
      "/sandbox": readOnly("/sandbox"),
      "/tmp": ["ok", "'/tmp/planted'"],
      proc: [false, false, ["failed", "FileNotFoundError: [Errno 2] No such file or directory: '/proc'"]],
      uid: [65534, 65534],
    });
  });

  it("starts every call with an empty /tmp, whatever the call before left there", async () => {
    const plant = `
import os

def run(inputs):
    os.makedirs("/tmp/a/b/c")
    for path in ["/tmp/file", "/tmp/a/b/c/deep", "/tmp/.hidden"]:
        with open(path, "w") as file:
            file.write("left behind")
    os.symlink("/etc/passwd", "/tmp/link")
    os.mkfifo("/tmp/fifo")
    os.chmod("/tmp/a/b", 0)
    os.chmod("/tmp/a", 0o500)
    return sorted(os.listdir("/tmp"))
`;
    expect(outputOf(await attack(plant))).toEqual([".hidden", "a", "fifo", "file", "link"]);
    const look = "import os\n\ndef run(inputs):\n    return os.listdir('/tmp')\n";
    expect(outputOf(await attack(look))).toEqual([]);
  });

  it("holds only the jail's environment: none of the host's variables", async () => {
    const code = "import os\n\ndef run(inputs):\n    return dict(os.environ)\n";
    const environment = outputOf(await attack(code));
    expect(environment).not.toHaveProperty(CANARY);
    expect(environment).toEqual({
      HOME: "/tmp",
      LANG: "C.UTF-8",
      MPLBACKEND: "Agg",
      MPLCONFIGDIR: "/tmp/matplotlib",
      OPENBLAS_NUM_THREADS: "1",
      OMP_NUM_THREADS: "1",
      PWD: "/tmp",
    });
  });
});

describe("the limits", () => {
  it("sets the rlimits soft and hard alike, and a call can neither raise nor lower them", async () => {
    const code = `
import resource

NAMES = ["RLIMIT_DATA", "RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE", "RLIMIT_MEMLOCK", "RLIMIT_MSGQUEUE"]

def run(inputs):
    before = {name: list(resource.getrlimit(getattr(resource, name))) for name in NAMES}
    cpu = resource.RLIMIT_CPU
    tries = {
        "raise": attempt(lambda: resource.setrlimit(cpu, (before["RLIMIT_CPU"][0] + 60, before["RLIMIT_CPU"][1] + 60))),
        "lower": attempt(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))),
        "prlimit": attempt(lambda: resource.prlimit(0, cpu, (1, 1))),
    }
    after = {name: list(resource.getrlimit(getattr(resource, name))) for name in NAMES}
    return {"limits": before, "tries": tries, "unchanged": before == after}
`;
    const found = outputOf(await attack(code)) as {
      limits: Record<string, [number, number]>;
      tries: Record<string, unknown>;
      unchanged: boolean;
    };
    for (const [name, [soft, hard]] of Object.entries(found.limits)) expect(soft, name).toBe(hard);
    const { RLIMIT_DATA, RLIMIT_AS, ...fixed } = found.limits;
    expect(fixed).toEqual({
      RLIMIT_CPU: [Math.ceil(config.sandbox.timeoutMs / 1000) + 5, Math.ceil(config.sandbox.timeoutMs / 1000) + 5],
      RLIMIT_FSIZE: [64 << 20, 64 << 20],
      RLIMIT_NOFILE: [64, 64],
      RLIMIT_NPROC: [0, 0],
      RLIMIT_CORE: [0, 0],
      RLIMIT_MEMLOCK: [0, 0],
      RLIMIT_MSGQUEUE: [0, 0],
    });
    // The data limit: the zygote's own data (as the host reads it from /proc), 32 MB for the call's interpreter,
    // then the tool's allowance.
    const allowance = RLIMIT_DATA[0] - 32 * 1024 * 1024 - config.sandbox.memoryBytes;
    const status = (field: string) =>
      zygotes().map((pid) => {
        const line = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        return Number(line?.[1] ?? 0) * 1024;
      });
    const data = status("VmData");
    expect(
      data.some((figure) => Math.abs(figure - allowance) < 16 * 1024 * 1024),
      `${allowance} ${data}`,
    ).toBe(true);
    // The address space's, likewise over the zygote's own, with room for the mappings the libraries make as they go.
    const sizes = status("VmSize");
    expect(RLIMIT_AS[0]).toBeGreaterThan(RLIMIT_DATA[0]);
    expect(
      sizes.some((size) => size + config.sandbox.memoryBytes < RLIMIT_AS[0]),
      `${RLIMIT_AS[0]} ${sizes}`,
    ).toBe(true);
    expect(found.tries).toEqual({
      raise: ["failed", "ValueError: not allowed to raise maximum limit"],
      // The filter's EPERM, which CPython's setrlimit words as for raising.
      lower: ["failed", "ValueError: not allowed to raise maximum limit"],
      prlimit: EPERM,
    });
    expect(found.unchanged).toBe(true);
  });

  it("fails an allocation over the memory limit as `memory`, in the limit's words, and serves the next call", async () => {
    const message = `The code used more than the ${config.sandbox.memoryBytes / 1024 / 1024} MB memory limit and was stopped.`;
    const numpy = "import numpy as np\n\ndef run(inputs):\n    return float(np.ones(10 ** 9).sum())\n";
    expect(await attack(numpy)).toMatchObject({ ok: false, error: { kind: "memory", message } });
    expect(await nextIsServed()).toBeLessThan(500);
    const growing = "def run(inputs):\n    data = []\n    while True:\n        data.append(bytearray(1 << 20))\n";
    expect(await attack(growing)).toMatchObject({ ok: false, error: { kind: "memory", message } });
    expect(await nextIsServed()).toBeLessThan(500);
  });

  it("grants no shared memory past the memory limit: a shared mapping, memfds", async () => {
    // RLIMIT_DATA counts private writable mappings only. mmap's default, MAP_SHARED, is shared memory, which it does
    // not count; nor memfds (each up to RLIMIT_FSIZE, 64 MB, and 64 descriptors). Four times the allowance each.
    const size = 4 * config.sandbox.memoryBytes;
    const forms = {
      "a shared mapping": `
import mmap

def run(inputs):
    shared = mmap.mmap(-1, ${size})
    for offset in range(0, ${size}, 4096):
        shared[offset] = 1
    return "touched ${size >> 20} MB"
`,
      memfds: `
import os

def run(inputs):
    chunk = b"x" * (1 << 20)
    for index in range(${size >> 20} // 60 + 1):
        fd = os.memfd_create(f"hoard{index}")
        for _ in range(60):
            os.write(fd, chunk)
    return "wrote ${size >> 20} MB"
`,
    };
    const outcomes: Record<string, string> = {};
    for (const [form, code] of Object.entries(forms)) {
      const outcome = await attack(code);
      outcomes[form] = outcome.ok
        ? `ok: ${JSON.stringify(outcome.output)}`
        : "error" in outcome
          ? `${outcome.error.kind}: ${outcome.error.message}`
          : "refused by policy";
      expect(await nextIsServed(), form).toBeLessThan(500);
    }
    // Stopped at the limit, or refused outright (the filter's EPERM): never granted.
    const stopped = new RegExp(
      `^(memory: The code used more than the ${config.sandbox.memoryBytes >> 20} MB memory limit|error: PermissionError: \\[Errno 1\\] Operation not permitted)`,
    );
    expect(outcomes).toEqual({
      "a shared mapping": expect.stringMatching(stopped),
      memfds: expect.stringMatching(stopped),
    });
  });

  it("refuses signals to the zygote and to the jail's init, and the pool is unharmed", async () => {
    const before = pool.stats();
    const code = `
import os, signal

def run(inputs):
    return {
        "parent": attempt(lambda: os.kill(os.getppid(), signal.SIGKILL)),
        "init": attempt(lambda: os.kill(1, signal.SIGKILL)),
        "group": attempt(lambda: os.killpg(os.getpgid(0), signal.SIGKILL)),
        "everyone": attempt(lambda: os.kill(-1, signal.SIGKILL)),
    }
`;
    expect(outputOf(await attack(code))).toEqual({ parent: EPERM, init: EPERM, group: EPERM, everyone: EPERM });
    expect(await nextIsServed()).toBeLessThan(500);
    expect(pool.stats()).toMatchObject({ processes: 1, terminated: before.terminated });
  });

  it("refuses ptrace and becoming dumpable again, through ctypes", async () => {
    const code = `
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)

def call(name, *args):
    result = getattr(libc, name)(*args)
    return [result, ctypes.get_errno()]

def run(inputs):
    return {
        "attach to the zygote": call("ptrace", 16, os.getppid(), 0, 0),
        "traceme": call("ptrace", 0, 0, 0, 0),
        "dumpable": call("prctl", 4, 1, 0, 0, 0),
    }
`;
    expect(outputOf(await attack(code))).toEqual({
      "attach to the zygote": [-1, 1],
      traceme: [-1, 1],
      dumpable: [-1, 1],
    });
  });
});

describe("the time limit, from the parent's clock", () => {
  const LIMIT = 300;
  const forms = {
    "a catastrophic regular expression":
      "import re\n\ndef run(inputs):\n    return bool(re.match('(a+)+$', 'a' * 40 + 'b'))\n",
    "a giant power": "def run(inputs):\n    return 10 ** 10 ** 8 % 7\n",
    "numpy on large arrays": `
import numpy as np

def run(inputs):
    a = np.ones((2000, 2000), dtype=np.float32)
    for _ in range(1000):
        a = a @ a / 2000
    return float(a.sum())
`,
    "a print flood": "def run(inputs):\n    while True:\n        print('flood' * 100)\n",
  };
  for (const [form, code] of Object.entries(forms)) {
    it(`stops ${form} at the limit, and serves the next call at once`, async () => {
      const started = performance.now();
      const outcome = await attack(code, { timeoutMs: LIMIT });
      const stopped = performance.now() - started;
      expect(outcome).toMatchObject({
        ok: false,
        error: { kind: "timeout", message: `The code ran longer than the ${LIMIT} ms limit and was stopped.` },
      });
      expect(stopped).toBeGreaterThanOrEqual(LIMIT);
      expect(stopped).toBeLessThan(LIMIT + 500);
      expect(await nextIsServed()).toBeLessThan(500);
    });
  }

  it("answers a stopped call `cancelled` within 100 ms, and serves the next call at once", async () => {
    const stop = new AbortController();
    const pending = attack("def run(inputs):\n    while True:\n        pass\n", { signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const stopped = performance.now();
    stop.abort();
    expect(await pending).toMatchObject({
      ok: false,
      error: { kind: "cancelled", message: "The call was cancelled: the run was stopped." },
    });
    expect(performance.now() - stopped).toBeLessThan(100);
    expect(await nextIsServed()).toBeLessThan(500);
  });
});

describe("what a call inherits from the zygote", () => {
  it("holds no descriptor but /dev/null and its own connection: none of the zygote's to meddle with", async () => {
    // The zygote's selector (an epoll instance) and its pidfds of other children would be open in every child after
    // fork: a readable descriptor registered in that epoll as fd 0 would make the zygote read its control pipe where
    // nothing comes, and the slot would never serve again. So, should one be found, it is used, then the next call
    // must still be served.
    const own = new Pool(1, config.sandbox.memoryBytes);
    try {
      await own.warm();
      const code = `
import os, select, stat, time

def kind(fd):
    mode = os.fstat(fd).st_mode
    return "socket" if stat.S_ISSOCK(mode) else "null" if stat.S_ISCHR(mode) else "other"

def run(inputs):
    time.sleep(0.05)
    found = {}
    for fd in range(0, 64):
        try:
            found[fd] = kind(fd)
        except OSError:
            pass
    for fd in list(found):
        try:
            loop = select.epoll.fromfd(os.dup(fd))
        except OSError:
            continue
        try:
            loop.poll(0)
        except OSError:
            loop.close()
            continue
        readable, writer = os.pipe()
        os.write(writer, b"x")
        os.dup2(readable, 0)
        loop.register(0, select.EPOLLIN)
        found[fd] = "epoll, meddled with"
    return found
`;
      expect(outputOf(await attack(code, { on: own }))).toEqual({ 0: "null", 1: "null", 2: "null", 3: "socket" });
      const next = await Promise.race([
        own.run({ mode: "tool", code: "def run(inputs):\n    return 'next'\n", limits: limitsOf() }),
        new Promise((resolve) => setTimeout(() => resolve("no answer within 3 s"), 3000)),
      ]);
      expect(next).toMatchObject({ ok: true, output: "next" });
    } finally {
      await own.close();
    }
  }, 15_000);
});

describe("many calls", () => {
  it("answers 50 concurrent calls on a pool of two, none failing for want of a process", async () => {
    const many = sandbox.pythonPool();
    expect(many.stats().processes).toBe(2);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        sandbox.runInSandbox(
          "tool",
          { language: "python", code: "def run(inputs):\n    return inputs['n'] * 2\n" },
          {
            n: index,
          },
        ),
      ),
    );
    expect(outcomes.map((outcome) => (outcome.ok ? outcome.output : outcome.error))).toEqual(
      Array.from({ length: 50 }, (_, index) => index * 2),
    );
    expect(many.stats()).toMatchObject({ processes: 2, busy: 0, queued: 0 });
  });
});

describe("figures and prints", () => {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const pngs = (outcome: PythonOutcome) => {
    const images = (outcome as { images?: { mimeType: string; data: string }[] }).images ?? [];
    for (const image of images) {
      expect(image.mimeType).toBe("image/png");
      expect(Buffer.from(image.data, "base64").subarray(0, 8)).toEqual(PNG);
    }
    return images.length;
  };

  it("returns the figures plt.show() showed and those left open, with what the tool printed", async () => {
    const code = `
import matplotlib.pyplot as plt

def run(inputs):
    plt.plot([1, 2, 3], [2, 4, 1])
    plt.title("shown")
    plt.show()
    print("shown one")
    plt.figure()
    plt.bar(["a", "b"], [3, 5])
    print("left one open")
    return "drawn"
`;
    const outcome = await sandbox.runInSandbox("tool", { language: "python", code });
    expect(outcome).toMatchObject({ ok: true, output: "drawn", logs: ["shown one", "left one open"] });
    expect(pngs(outcome as PythonOutcome)).toBe(2);
    // Drawn by one call, none in the next.
    const none = await sandbox.runInSandbox("tool", { language: "python", code: "def run(inputs):\n    return 1\n" });
    expect(pngs(none as PythonOutcome)).toBe(0);
  });

  it("returns the prints and figures of a call that fails, too", async () => {
    const code = `
import matplotlib.pyplot as plt

def run(inputs):
    print("before the error")
    plt.plot([1, 2])
    raise ValueError("after the plot")
`;
    const outcome = await sandbox.runInSandbox("tool", { language: "python", code });
    expect(outcome).toMatchObject({
      ok: false,
      error: { kind: "error", message: "ValueError: after the plot (line 7)" },
      logs: ["before the error"],
    });
  });
});

describe("the network, through the host", () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      seen.push(`${request.method} ${request.url}`);
      if (request.url === "/x.csv") {
        response.writeHead(200, { "content-type": "text/csv" });
        response.end("city,people\nLyon,522\nNice,342\n");
        return;
      }
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end("héllo from the loopback");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const both = (url: string) => `
import requests, urllib.request

def run(inputs):
    found = {}
    try:
        reply = requests.get("${url}", timeout=5)
        found["requests"] = [reply.status_code, reply.text, list(reply.content[:2])]
    except requests.exceptions.ConnectionError as error:
        found["requests"] = str(error)
    try:
        with urllib.request.urlopen("${url}") as reply:
            body = reply.read()
            found["urllib"] = [reply.status, body.decode("utf-8"), list(body[:2])]
    except urllib.error.URLError as error:
        found["urllib"] = str(error.reason)
    return found
`;
  const python = (code: string) => ({ language: "python" as const, code });

  it("has no network without a host that serves it", async () => {
    seen.length = 0;
    const outcome = await pool.run({ mode: "tool", code: both(`${base}/text`), input: {}, limits: limitsOf() });
    expect(outputOf(outcome as PythonOutcome)).toEqual({
      requests: "This code has no network here.",
      urllib: "This code has no network here.",
    });
    expect(seen).toEqual([]);
  });

  it("refuses a loopback address through the guard, naming the host, and nothing reaches it", async () => {
    seen.length = 0;
    const outcome = await sandbox.runInSandbox("tool", python(both(`${base}/text`)));
    expect(outcome).toMatchObject({
      ok: true,
      output: { requests: "127.0.0.1 is not a public address.", urllib: "127.0.0.1 is not a public address." },
    });
    expect(seen).toEqual([]);
  });

  it("reaches an address the profile's allowed_domains names, bytes and text, for requests and urllib", async () => {
    seen.length = 0;
    const outcome = await sandbox.runInSandbox("tool", python(both(`${base}/text`)), {}, undefined, {
      network: { allowed_domains: ["127.0.0.1"] },
    });
    const body = "héllo from the loopback";
    expect(outcome).toMatchObject({
      ok: true,
      output: { requests: [200, body, [0x68, 0xc3]], urllib: [200, body, [0x68, 0xc3]] },
    });
    expect(seen).toEqual(["GET /text", "GET /text"]);
  });

  it("reads a CSV from a URL with pandas under the same rule", async () => {
    seen.length = 0;
    const code = `
import pandas as pd

def run(inputs):
    return pd.read_csv("${base}/x.csv")
`;
    const allowed = await sandbox.runInSandbox("tool", python(code), {}, undefined, {
      network: { allowed_domains: ["127.0.0.1"] },
    });
    expect(allowed).toMatchObject({
      ok: true,
      output: [
        { city: "Lyon", people: 522 },
        { city: "Nice", people: 342 },
      ],
    });
    expect(seen).toEqual(["GET /x.csv"]);
    const refused = await sandbox.runInSandbox("tool", python(code));
    expect(refused).toMatchObject({
      ok: false,
      error: { kind: "error", message: expect.stringContaining("127.0.0.1 is not a public address.") },
    });
    expect(seen).toEqual(["GET /x.csv"]);
  });

  it("refuses a host the profile's blocked_domains names, in a sentence naming it", async () => {
    seen.length = 0;
    const outcome = await sandbox.runInSandbox("tool", python(both(`${base}/text`)), {}, undefined, {
      network: { allowed_domains: ["127.0.0.1"], blocked_domains: ["127.0.0.1"] },
    });
    const refusal = "127.0.0.1 is blocked by this profile's network settings.";
    expect(outcome).toMatchObject({ ok: true, output: { requests: refusal, urllib: refusal } });
    expect(seen).toEqual([]);
  });
});

describe("results from pandas and numpy", () => {
  it("converts a DataFrame to its records (NaN as null), a Series, numpy scalars and arrays to JSON", async () => {
    const code = `
import numpy as np
import pandas as pd

def run(inputs):
    frame = pd.DataFrame({"name": ["a", "b", None], "score": [1.5, np.nan, 3.0], "n": [1, 2, 3]})
    return {
        "frame": frame,
        "series": pd.Series([1.0, np.nan], index=["x", "y"]),
        "int64": np.int64(7),
        "float64": np.float64(0.25),
        "bool": np.bool_(True),
        "array": np.arange(6).reshape(2, 3),
        "mean": frame["n"].mean(),
    }
`;
    expect(await sandbox.runInSandbox("tool", { language: "python", code })).toMatchObject({
      ok: true,
      output: {
        frame: [
          { name: "a", score: 1.5, n: 1 },
          { name: "b", score: null, n: 2 },
          { name: null, score: 3, n: 3 },
        ],
        series: { x: 1, y: null },
        int64: 7,
        float64: 0.25,
        bool: true,
        array: [
          [0, 1, 2],
          [3, 4, 5],
        ],
        mean: 2,
      },
    });
  });
});
