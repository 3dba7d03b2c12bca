// @ts-check
// One Python sandbox process: Pyodide (CPython in WebAssembly) inside bubblewrap, under Node's permission model and
// without code generation from strings. Plain ESM because Node starts it directly, outside Next's bundle. The
// parent (pool.ts) owns the wall clock and kills this process when a call overruns; this file takes the bridges
// away before any tool code runs, so that even code past the policy check finds nothing of the host to reach.
import fs from "node:fs";

const host = process;
const [pyodideDir, harnessFile, policyJson, memoryBytes, hostLimitsJson, snapshotFile] = host.argv.slice(2);
/** @type {{ requestBytes: number, replyBytes: number }} */
const hostLimits = JSON.parse(hostLimitsJson);
const send = /** @type {(message: unknown) => void} */ (host.send?.bind(host));

// Pyodide's file system module asks process.binding for open flags, which the permission model refuses.
const binding = process.binding.bind(process);
process.binding = (name) => (name === "constants" ? { fs: fs.constants } : binding(name));

const { loadPyodide } = await import(`${pyodideDir}/pyodide.mjs`);
const snapshot = snapshotFile && fs.existsSync(snapshotFile) ? fs.readFileSync(snapshotFile) : undefined;
const pyodide = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  // The `js` module is the object given here: an empty one, not the process's global scope.
  jsglobals: Object.create(null),
  env: { HOME: "/home/tool" },
  _loadSnapshot: snapshot,
  _makeSnapshot: !snapshot,
});
const policy = JSON.parse(policyJson);
if (!snapshot) {
  // The first process of a new Pyodide or policy: import what calls will use, and hand the memory image to the
  // parent, which stores it; later processes start from it in a fraction of the time.
  pyodide.runPython(
    `import ast, json, types\nfor name in ${JSON.stringify([...policy.allowedModules, ...policy.preload])}: __import__(name)`,
  );
  send({ type: "snapshot", bytes: pyodide.makeMemorySnapshot() });
}

// tools.call's channel: fd 4, a socket the parent made (blocking on this side). Python reaches it only as a device
// file of Emscripten's, so what tool code holds is a file descriptor, never a JavaScript object: a request written
// to it goes to the parent, which checks and serves it, and the write returns once the reply is there to be read.
const TOOLS_FD = 4;
const TOOLS_DEVICE = "/dev/tools";
/** The job being executed, whose tools.call requests the parent serves; 0 between jobs, when none is sent. */
let activeJob = 0;
let toolReply = Buffer.alloc(0);
const toolsDevice = pyodide.FS.makedev(64, 0);
pyodide.FS.registerDevice(toolsDevice, {
  open() {},
  close() {},
  read(
    /** @type {unknown} */ _stream,
    /** @type {Int8Array} */ buffer,
    /** @type {number} */ offset,
    /** @type {number} */ length,
  ) {
    const size = Math.min(length, toolReply.length);
    buffer.set(new Int8Array(toolReply.buffer, toolReply.byteOffset, size), offset);
    toolReply = toolReply.subarray(size);
    return size;
  },
  write(
    /** @type {unknown} */ _stream,
    /** @type {Int8Array} */ buffer,
    /** @type {number} */ offset,
    /** @type {number} */ length,
  ) {
    toolReply = exchange(Buffer.from(buffer.buffer, buffer.byteOffset + offset, length));
    return length;
  },
});
pyodide.FS.mkdev(TOOLS_DEVICE, 0o600, toolsDevice);

/**
 * One tools.call: the request to the parent as a frame (the job's id, the length, the bytes), then its reply
 * (a length, then JSON). Refused here, without asking the parent, between jobs and past the size limit.
 * @param {Buffer} request
 */
function exchange(request) {
  if (!activeJob) return refusal("tools.call works only while its tool runs.");
  if (request.length > hostLimits.requestBytes)
    return refusal(`The tools.call request is larger than ${hostLimits.requestBytes} bytes.`);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(activeJob, 0);
  header.writeUInt32BE(request.length, 4);
  writeAll(Buffer.concat([header, request]));
  const size = readExactly(4).readUInt32BE(0);
  // The parent caps its replies; one past the cap means the channel is broken, and so is this process.
  if (size > hostLimits.replyBytes) throw new Error("The parent sent a tools.call reply over the limit.");
  return readExactly(size);
}

const refusal = (/** @type {string} */ error) => Buffer.from(JSON.stringify({ ok: false, error }));

function writeAll(/** @type {Buffer} */ bytes) {
  for (let written = 0; written < bytes.length;) written += fs.writeSync(TOOLS_FD, bytes, written);
}

function readExactly(/** @type {number} */ size) {
  const bytes = Buffer.alloc(size);
  for (let read = 0; read < size;) {
    const got = fs.readSync(TOOLS_FD, bytes, read, size - read, null);
    if (got === 0) throw new Error("The parent closed the tools.call channel.");
    read += got;
  }
  return bytes;
}

pyodide.runPython(fs.readFileSync(harnessFile, "utf8"), { globals: pyodide.globals });
const harness = {
  configure: pyodide.globals.get("configure"),
  check: pyodide.globals.get("check_json"),
  call: pyodide.globals.get("call"),
  pristine: pyodide.globals.get("pristine"),
};
// The bridges to JavaScript: the modules, then the globals a reached realm could use.
for (const name of ["js", "pyodide_js"]) pyodide.unregisterJsModule(name);
pyodide.runPython(`
import sys
for name in [name for name in sys.modules if name.split(".")[0] in ("js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "micropip")]:
    del sys.modules[name]
class _Refuse:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in ("js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "micropip", "ctypes", "_ctypes"):
            raise ImportError(f"{name} is not available in the sandbox")
        return None
sys.meta_path.insert(0, _Refuse)
del _Refuse
`);
harness.configure(policyJson, TOOLS_DEVICE);
// Kept for this file alone: the settle step below runs once the call's microtasks have.
const afterMicrotasks = setImmediate;
// The host's objects, and every way to run something later: a call must not leave work that runs after its answer
// (in Python, asyncio's loop and Pyodide's scheduleCallback end in these), where the settle check cannot see it.
for (const name of [
  ...["process", "fetch", "WebSocket", "EventSource", "navigator", "require", "module"],
  ...["setTimeout", "setInterval", "setImmediate", "queueMicrotask", "MessageChannel", "BroadcastChannel"],
]) {
  delete (/** @type {Record<string, unknown>} */ (globalThis)[name]);
}

// The memory limit: the interpreter's memory as it is now, plus the call's allowance. Emscripten grows its memory
// from JavaScript and takes a refusal as out-of-memory, which Python raises as MemoryError at once (the process's
// data limit is the backstop, but V8 retries a refused growth after collecting garbage, slowly).
const memoryCap = pyodide._module.HEAP8.buffer.byteLength + Number(memoryBytes);
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (/** @type {number} */ pages) {
  if (this.buffer.byteLength + pages * 65536 > memoryCap) throw new RangeError("The memory limit is reached.");
  return grow.call(this, pages);
};

/** @param {{ id: number, mode: string, code: string, input?: unknown, requireEntryPoint?: boolean, skipPolicy?: boolean,
 *   uses?: string[], limits: { outputChars: number, consoleChars: number } }} job */
function execute(job) {
  const started = performance.now();
  if (job.mode === "check") {
    const uses = job.uses === undefined ? undefined : JSON.stringify(job.uses);
    const verdict = JSON.parse(harness.check(job.code, Boolean(job.requireEntryPoint), Boolean(job.skipPolicy), uses));
    return { ...verdict, durationMs: performance.now() - started };
  }
  activeJob = job.id;
  let text;
  try {
    text = harness.call(
      job.mode,
      job.code,
      JSON.stringify(job.input ?? {}),
      job.limits.outputChars,
      job.limits.consoleChars,
      Boolean(job.skipPolicy),
    );
  } finally {
    activeJob = 0;
    toolReply = Buffer.alloc(0);
  }
  const durationMs = performance.now() - started;
  const reply = JSON.parse(text);
  const outcome = { logs: reply.logs ?? [], consoleTruncated: Boolean(reply.truncated), durationMs };
  if (reply.violations) return { ok: false, violations: reply.violations, ...outcome };
  if (!reply.ok) return { ok: false, error: reply.error, ...outcome };
  const printed = reply.text === undefined ? {} : { text: reply.text };
  if (reply.outputTruncated) return { ok: true, output: reply.output, outputTruncated: true, ...printed, ...outcome };
  return { ok: true, output: "json" in reply ? JSON.parse(reply.json) : null, ...printed, ...outcome };
}

const onMessage = (/** @type {any} */ message) => {
  if (message.type !== "job") return;
  const { id, mode } = message.job;
  try {
    send({ type: "result", id, ...execute(message.job) });
  } catch (error) {
    // Pyodide itself failed (the interpreter was ended or corrupted): this process cannot serve another call.
    const text = String(error instanceof Error ? error.message : error).slice(0, 500);
    send({
      type: "result",
      id,
      ok: false,
      error: { kind: "crash", message: text },
      logs: [],
      consoleTruncated: false,
      durationMs: 0,
    });
    send({ type: "settled", retire: true });
    return;
  }
  // After the answer, off the caller's clock, and after any promise callback the call queued: a call that changed
  // anything the next call could see retires us. A check runs nothing of the tool's.
  afterMicrotasks(() => send({ type: "settled", retire: mode !== "check" && !harness.pristine() }));
};
host.on("message", onMessage);
send({ type: "ready", memory: pyodide._module.HEAP8.buffer.byteLength });
