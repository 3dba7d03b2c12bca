// @ts-check
// One sandbox worker thread: runs tool code in a fresh QuickJS runtime per call. Plain ESM because Node starts it
// directly, outside Next's bundle. The parent owns the wall clock and terminates this thread when a call overruns,
// so nothing here has to be trusted to stop.
import { parentPort } from "node:worker_threads";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";

const QuickJS = await newQuickJSWASMModuleFromVariant(releaseSync);
const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);

/** Host replies to this worker's requests (a fetch, a tool call), by request id. */
const pendingReplies = new Map();
let nextRequestId = 1;
/** Wakes the call waiting for a host reply: it runs the jobs the reply settled at once, rather than polling. */
let wakeWaitingCall = () => {};
const nextHostReply = () => new Promise((resolve) => (wakeWaitingCall = resolve));

// Trusted prelude, evaluated before the tool's code: installs console, fetch and tools over host functions passed in
// as arguments, so no host binding is ever reachable by name, and returns the functions that invoke the tool.
// Compiling it is most of a call's cost, so each is only installed for code that mentions it.
const CONSOLE = `
  const show = (value) => {
    if (typeof value === "string") return value;
    try { const json = JSON.stringify(value); return json === undefined ? String(value) : json; }
    catch (error) { return String(value); }
  };
  const log = (...values) => hostLog(values.map(show).join(" ").slice(0, limits.consoleChars));
  globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });`;
const FETCH = `
  class Response {
    constructor(reply) { this.status = reply.status; this.ok = reply.status >= 200 && reply.status < 300;
      this.url = reply.url; this.headers = Object.freeze({ ...reply.headers, get: (k) => reply.headers[String(k).toLowerCase()] ?? null });
      this.truncated = reply.truncated; this.body = reply.body; }
    async text() { return this.body; }
    async json() { return JSON.parse(this.body); }
  }
  globalThis.fetch = async (url, init = {}) => {
    const request = { url: String(url), method: init.method, headers: init.headers, body: init.body == null ? undefined : String(init.body) };
    return new Response(JSON.parse(await hostFetch(JSON.stringify(request))));
  };`;
// The conversation's workspace (lib/files/code-files.ts): paths from its root, "/".
const FILES = `
  const askFiles = async (request) => JSON.parse(await hostFiles(JSON.stringify(request)));
  globalThis.files = Object.freeze({
    list: async (path = "/") => askFiles({ op: "list", path: String(path) }),
    read: async (path, options = {}) => askFiles({ op: "read", path: String(path), encoding: options.encoding }),
    write: async (path, content, options = {}) =>
      askFiles({ op: "write", path: String(path), content: String(content), encoding: options.encoding }),
  });`;
// Not a property of the global object: TOOLS_BINDING makes it a global `const`, which code reaches only by its
// name (never as this.tools), so the policy's check sees every use of it.
const TOOLS = `
  const tools = Object.freeze({
    call: async (name, input) => {
      const reply = JSON.parse(await hostTool(JSON.stringify({ name: String(name), input: input === undefined ? {} : input })));
      if (!reply.ok) throw new Error(reply.error);
      return reply.output;
    },
  });`;
// secrets.WEATHER_KEY is a placeholder, never the value: the host fills it in for the secret's hosts only
// (lib/sandbox/secret-boundary.ts). A name the tool did not declare is an error, not an `undefined` sent in a request.
const SECRETS = `
  const placeholders = JSON.parse(secretsJson);
  globalThis.secrets = new Proxy(Object.freeze(placeholders), {
    get(target, name) {
      if (typeof name !== "string" || name in target || name === "toJSON" || name === "then") return target[name];
      const listed = Object.keys(target).join(", ") || "none";
      throw new Error(name + " is not among this tool's secrets (" + listed + "): register a new version that lists it in secrets, and ask the person to add it in Settings → Secrets.");
    },
  });`;
const TOOLS_BINDING = "const tools = globalThis.toolsBinding; delete globalThis.toolsBinding;";
// Code that calls tools.call: other code may have a `tools` of its own, which a global const would collide with.
const CALLS_TOOLS = /\btools\s*(\?\.|\.)\s*call\b/;
const USES_FILES = /\bfiles\b/;
const USES_SECRETS = /\bsecrets\b/;
const INVOKERS = `
  const serialise = (value) => {
    const json = JSON.stringify(value === undefined ? null : value);
    if (json === undefined) return "null";
    return json.length > limits.outputChars ? JSON.stringify({ truncatedJson: json.slice(0, limits.outputChars) }) : JSON.stringify({ json });
  };
  return {
    tool: async (run, inputJson) => serialise(await run(JSON.parse(inputJson))),
    snippet: async (completion) => serialise(await completion),
    tools: typeof tools === "undefined" ? undefined : tools,
  };`;
const preludes = new Map();
function preludeFor(code) {
  const uses = [
    code.includes("console"),
    code.includes("fetch"),
    CALLS_TOOLS.test(code),
    USES_FILES.test(code),
    USES_SECRETS.test(code),
  ];
  const key = uses.join();
  if (!preludes.has(key)) {
    const parts = [CONSOLE, FETCH, TOOLS, FILES, SECRETS].map((part, index) => (uses[index] ? part : ""));
    preludes.set(
      key,
      `(function (hostLog, hostFetch, hostTool, hostFiles, limits, secretsJson) {\n  "use strict";${parts.join("")}${INVOKERS}\n})`,
    );
  }
  return preludes.get(key);
}

/**
 * @param {{ id: number, mode: "tool" | "compile" | "snippet", code: string, input: unknown, limits: {
 *   timeoutMs: number, memoryBytes: number, stackBytes: number, outputChars: number, consoleChars: number },
 *   secrets?: Record<string, string> }} job
 */
async function execute(job) {
  const started = performance.now();
  const deadline = started + job.limits.timeoutMs;
  const logs = [];
  let logChars = 0;
  let consoleTruncated = false;
  let inFlight = 0;

  const runtime = sharedRuntime(job.limits);
  runtime.setInterruptHandler(() => performance.now() > deadline);
  // A new context per call is a new realm (its own globals and built-ins); the runtime underneath is reused.
  const vm = runtime.newContext();
  const handles = [];
  const keep = (handle) => (handles.push(handle), handle);

  const finish = (outcome) => ({
    id: job.id,
    ...outcome,
    logs,
    consoleTruncated,
    durationMs: performance.now() - started,
  });

  try {
    const hostLog = keep(
      vm.newFunction("log", (text) => {
        const line = vm.getString(text);
        if (logChars + line.length > job.limits.consoleChars) {
          consoleTruncated = true;
          return;
        }
        logChars += line.length;
        logs.push(line);
      }),
    );
    /** A host function for `kind` requests: its promise settles when the parent replies. */
    const hostRequest = (kind, errorName) =>
      keep(
        vm.newFunction(kind, (payloadJson) => {
          const deferred = vm.newPromise();
          const requestId = nextRequestId++;
          inFlight++;
          pendingReplies.set(requestId, (reply) => {
            inFlight--;
            if (!deferred.alive) return;
            if (reply.error) {
              const error = vm.newError({ name: errorName, message: reply.error });
              deferred.reject(error);
              error.dispose();
            } else {
              const body = vm.newString(JSON.stringify(reply.response));
              deferred.resolve(body);
              body.dispose();
            }
            deferred.dispose();
          });
          port.postMessage({
            type: "host",
            kind,
            id: job.id,
            requestId,
            payload: JSON.parse(vm.getString(payloadJson)),
          });
          return deferred.handle;
        }),
      );
    const hostFetch = hostRequest("fetch", "FetchError");
    const hostTool = hostRequest("tool", "ToolError");
    const hostFiles = hostRequest("files", "FilesError");
    const limitsObject = keep(vm.newObject());
    for (const name of ["outputChars", "consoleChars"])
      vm.setProp(limitsObject, name, keep(vm.newNumber(job.limits[name])));
    const prelude = keep(vm.unwrapResult(vm.evalCode(preludeFor(job.code), "prelude.js")));
    const secretsJson = keep(vm.newString(JSON.stringify(job.secrets ?? {})));
    const invokers = keep(
      vm.unwrapResult(
        vm.callFunction(prelude, vm.undefined, hostLog, hostFetch, hostTool, hostFiles, limitsObject, secretsJson),
      ),
    );

    const toolsObject = keep(vm.getProp(invokers, "tools"));
    if (vm.typeof(toolsObject) === "object") {
      vm.setProp(vm.global, "toolsBinding", toolsObject);
      keep(vm.unwrapResult(vm.evalCode(TOOLS_BINDING, "tools.js")));
    }
    const evaluated = vm.evalCode(job.code, job.mode === "snippet" ? "snippet.js" : "tool.js");
    if (evaluated.error) return finish({ ok: false, error: describeError(vm, keep(evaluated.error)) });
    const completion = keep(evaluated.value);

    let promise;
    if (job.mode !== "snippet") {
      const run = keep(vm.getProp(vm.global, "run"));
      if (vm.typeof(run) !== "function")
        return finish({ ok: false, error: { kind: "error", message: "The code does not define a function `run`." } });
      if (job.mode === "compile") return finish({ ok: true, output: null });
      const input = keep(vm.newString(JSON.stringify(job.input ?? {})));
      const call = vm.callFunction(keep(vm.getProp(invokers, "tool")), vm.undefined, run, input);
      if (call.error) return finish({ ok: false, error: describeError(vm, keep(call.error)) });
      promise = keep(call.value);
    } else {
      const call = vm.callFunction(keep(vm.getProp(invokers, "snippet")), vm.undefined, completion);
      if (call.error) return finish({ ok: false, error: describeError(vm, keep(call.error)) });
      promise = keep(call.value);
    }

    drainJobs(runtime);
    // Host requests resolve later: keep running jobs until the tool settles or nothing can settle it any more.
    let state = vm.getPromiseState(promise);
    while (state.type === "pending") {
      if (inFlight === 0)
        return finish({ ok: false, error: { kind: "error", message: "run() returned a promise that never settles." } });
      await nextHostReply();
      drainJobs(runtime);
      state = vm.getPromiseState(promise);
    }
    if (state.type === "rejected") return finish({ ok: false, error: describeError(vm, keep(state.error)) });
    const envelope = JSON.parse(vm.getString(keep(state.value)));
    return finish(
      "json" in envelope
        ? { ok: true, output: JSON.parse(envelope.json) }
        : { ok: true, output: envelope.truncatedJson, outputTruncated: true },
    );
  } catch (error) {
    return finish({
      ok: false,
      error: { kind: classify(String(error)), message: String(error instanceof Error ? error.message : error) },
    });
  } finally {
    try {
      for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
      vm.dispose();
      // Jobs a tool left queued would run in the next call's time: a runtime with any left is not reused.
      if (runtime.hasPendingJob()) poisoned = true;
    } catch {
      // An interrupted or overflowed call can leave objects that QuickJS refuses to free, which aborts the WASM
      // module. The outcome is already known; this thread just cannot run another call.
      poisoned = true;
    }
  }
}

/** Set when this thread's QuickJS module is no longer usable: the pool replaces the thread. */
let poisoned = false;

let runtimeInstance;
function sharedRuntime(limits) {
  if (!runtimeInstance) {
    runtimeInstance = QuickJS.newRuntime();
    runtimeInstance.setMemoryLimit(limits.memoryBytes);
    runtimeInstance.setMaxStackSize(limits.stackBytes);
  }
  return runtimeInstance;
}

function drainJobs(runtime) {
  const jobs = runtime.executePendingJobs();
  if (jobs.error) jobs.error.dispose();
}

function describeError(vm, handle) {
  const dumped = vm.dump(handle);
  const message =
    dumped && typeof dumped === "object"
      ? `${dumped.name ?? "Error"}: ${dumped.message ?? ""}`
      : `Uncaught ${typeof dumped === "string" ? dumped : JSON.stringify(dumped)}`;
  return { kind: classify(message), message: message.slice(0, 2000) };
}

/** QuickJS reports its own limits as errors: name them so that the model (and the trace) can tell them apart. */
function classify(message) {
  if (/interrupted/i.test(message)) return "timeout";
  if (/out of memory/i.test(message)) return "memory";
  if (/stack overflow/i.test(message)) return "stack";
  return "error";
}

port.on("message", async (message) => {
  if (message.type === "host-reply") {
    const resolve = pendingReplies.get(message.requestId);
    pendingReplies.delete(message.requestId);
    resolve?.(message);
    wakeWaitingCall();
    return;
  }
  const outcome = await execute(message.job);
  port.postMessage({ type: "result", ...outcome, retire: poisoned });
});
port.postMessage({ type: "ready" });
