import { getEventListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HostRequests, SandboxPool } from "@/lib/sandbox/pool";

/** How often the policy check has parsed code (acorn's parse, counted, otherwise itself). */
const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock("acorn", async (importOriginal) => {
  const acorn = await importOriginal<typeof import("acorn")>();
  return { ...acorn, parse: (...args: Parameters<typeof acorn.parse>) => (parses.count++, acorn.parse(...args)) };
});

process.env.TOOLSMITH_TOOL_TIMEOUT_MS = "1000";
process.env.TOOLSMITH_TOOL_MEMORY_MB = "32";
type Sandbox = typeof import("@/lib/sandbox");
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await import("@/lib/sandbox");
  await sandbox.sandboxPool().warm();
});
afterAll(async () => sandbox.sandboxPool().close());

const tool = (code: string, input: unknown = {}) =>
  sandbox.runInSandbox("tool", { language: "javascript", code: code }, input);

describe("the sandbox runtime", () => {
  it("calls run with the inputs and returns its value and console output", async () => {
    const result = await tool("function run({ a, b }) { console.log('adding', a, b, { a }); return { sum: a + b }; }", {
      a: 2,
      b: 3,
    });
    expect(result).toMatchObject({ ok: true, output: { sum: 5 }, logs: ['adding 2 3 {"a":2}'] });
  });

  it("awaits an async run", async () => {
    expect(await tool("async function run() { await null; return [1, 2].map((x) => x * 3); }")).toMatchObject({
      ok: true,
      output: [3, 6],
    });
  });

  it("returns a snippet's completion value", async () => {
    expect(
      await sandbox.runInSandbox("snippet", { language: "javascript", code: "const x = 20; x + 22" }),
    ).toMatchObject({ ok: true, output: 42 });
    expect(
      await sandbox.runInSandbox("snippet", { language: "javascript", code: "Promise.resolve('later')" }),
    ).toMatchObject({
      ok: true,
      output: "later",
    });
  });

  it("maps undefined to null and reports values JSON cannot carry", async () => {
    expect(await tool("function run() {}")).toMatchObject({ ok: true, output: null });
    expect(await tool("function run() { const a = {}; a.self = a; return a; }")).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/circular/i) },
    });
  });

  it("turns a thrown error into a failure with its message", async () => {
    expect(await tool("function run() { throw new RangeError('too far'); }")).toMatchObject({
      ok: false,
      error: { kind: "error", message: "RangeError: too far" },
    });
  });

  it("re-checks the policy before every run", async () => {
    const result = await tool("function run() { return process.env; }");
    expect(result).toMatchObject({ ok: false, violations: [{ line: 1, message: expect.stringContaining("process") }] });
  });

  it("stops an infinite loop at the time limit", async () => {
    const started = performance.now();
    const result = await tool("function run() { while (true) {} }");
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "timeout", message: expect.stringContaining("1000 ms") },
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("stops a loop around one slow built-in, which the interrupt handler cannot see, by killing the thread", async () => {
    const started = performance.now();
    const result = await tool("function run() { const s = 'x'.repeat(1 << 22); for (;;) s.indexOf('y'); }");
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it.each([
    ["a typed array", "new Uint8Array(100 * 1024 * 1024)"],
    ["a huge string", "'x'.repeat(2 ** 26)"],
    ["a huge array", "new Array(2 ** 24).fill(0)"],
  ])("refuses an allocation over the memory limit: %s", async (_name, allocation) => {
    const result = await tool(`function run() { return ${allocation}.length; }`);
    expect(result).toMatchObject({ ok: false, error: { kind: "memory", message: expect.stringContaining("32 MB") } });
  });

  it("stops a memory bomb that grows step by step (the clock or the memory limit, whichever comes first)", async () => {
    const started = performance.now();
    const result = await tool("function run() { const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length); }");
    expect(result.ok || result.error.kind).toMatch(/^(memory|timeout)$/);
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it("stops a memory bomb that catches out-of-memory and retries", async () => {
    const result = await tool(
      "function run() { const a = []; for (;;) { try { a.push(new Array(1e6).fill(1)); } catch (e) {} } }",
    );
    expect(result.ok || result.error.kind).toMatch(/^(memory|timeout)$/);
  });

  it("stops runaway recursion", async () => {
    expect(await tool("function run() { const f = () => f() + 1; return f(); }")).toMatchObject({
      ok: false,
      error: { kind: "stack" },
    });
  });

  it("caps the output that leaves the sandbox", async () => {
    const result = await tool("function run() { return 'y'.repeat(5 * 1024 * 1024); }");
    expect(result).toMatchObject({ ok: true, outputTruncated: true });
    expect(String(result.ok && result.output).length).toBeLessThanOrEqual(16_384);
  });

  it("caps console output", async () => {
    const result = await tool("function run() { for (let i = 0; i < 10000; i++) console.log('line ' + i); return 1; }");
    expect(result).toMatchObject({ ok: true, consoleTruncated: true });
    expect(result.logs.join("").length).toBeLessThanOrEqual(8192);
  });

  it("fails a promise that can never settle at once instead of waiting for the clock", async () => {
    const started = performance.now();
    expect(await tool("async function run() { await new Promise(() => {}); }")).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("never settles") },
    });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("exposes no host capability but console and fetch (layer 2 alone, without the policy)", async () => {
    const probe = await sandbox.sandboxPool().run(
      {
        mode: "snippet",
        code: "[typeof require, typeof setTimeout, typeof std, typeof os, typeof Buffer, typeof fetch, typeof console.log, typeof globalThis.process]",
        limits: {
          timeoutMs: 1000,
          memoryBytes: 32 << 20,
          stackBytes: 256 << 10,
          outputChars: 1000,
          consoleChars: 1000,
        },
      },
      { fetch: async () => ({}) },
    );
    expect(probe).toMatchObject({
      ok: true,
      output: ["undefined", "undefined", "undefined", "undefined", "undefined", "function", "function", "undefined"],
    });
  });

  it("starts every call in a fresh realm", async () => {
    await sandbox.runInSandbox("snippet", {
      language: "javascript",
      code: "var leaked = 'from an earlier call'; Array.prototype.polluted = true; 1",
    });
    expect(
      await sandbox.runInSandbox("snippet", { language: "javascript", code: "[typeof leaked, [].polluted]" }),
    ).toMatchObject({
      ok: true,
      output: ["undefined", null],
    });
  });

  it("keeps serving after a thread was killed", async () => {
    await tool("function run() { while (true) {} }");
    const results = await Promise.all([1, 2, 3, 4].map((n) => tool("function run({ n }) { return n * n; }", { n })));
    expect(results.map((result) => result.ok && result.output)).toEqual([1, 4, 9, 16]);
  });

  it("stops a call when it is cancelled: the thread is terminated within 100 ms and replaced", async () => {
    const controller = new AbortController();
    const before = sandbox.sandboxPool().stats().terminated.cancelled;
    const pending = sandbox.runInSandbox(
      "tool",
      {
        language: "javascript",
        code: "function run() { const end = Date.now() + 3000; while (Date.now() < end) {} return 'finished'; }",
      },
      {},
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    controller.abort();
    const result = await pending;
    expect(performance.now() - started).toBeLessThan(100);
    expect(result).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(sandbox.sandboxPool().stats().terminated.cancelled).toBe(before + 1);
    expect(await tool("function run() { return 'next'; }")).toMatchObject({ ok: true, output: "next" });
  });

  it("lets go of a run's signal when each call settles, however many calls share it", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 15; i++)
      await sandbox.runInSandbox(
        "tool",
        { language: "javascript", code: "function run() { return 1; }" },
        {},
        controller.signal,
      );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("cancels a call that waits in the queue, or was cancelled before it was sent, without running it", async () => {
    const pool = new SandboxPool(1);
    const limits = {
      timeoutMs: 1000,
      memoryBytes: 32 << 20,
      stackBytes: 256 << 10,
      outputChars: 1000,
      consoleChars: 1000,
    };
    const fetched: string[] = [];
    const onFetch = async (request: { url: string }) => void fetched.push(request.url);
    try {
      const busy = pool.run(
        { mode: "snippet", code: "const end = Date.now() + 300; while (Date.now() < end) {} 1", limits },
        { fetch: onFetch },
      );
      const controller = new AbortController();
      const queued = pool.run(
        { mode: "snippet", code: "fetch('http://queued.test/')", limits },
        { fetch: onFetch },
        controller.signal,
      );
      controller.abort();
      expect(await queued).toMatchObject({ ok: false, error: { kind: "cancelled" } });
      expect(
        await pool.run(
          { mode: "snippet", code: "fetch('http://aborted.test/')", limits },
          { fetch: onFetch },
          AbortSignal.abort(),
        ),
      ).toMatchObject({ error: { kind: "cancelled" } });
      expect(await busy).toMatchObject({ ok: true, output: 1 });
      expect(fetched).toEqual([]);
      expect(pool.stats()).toMatchObject({ threads: 1, busy: 0, queued: 0, terminated: { cancelled: 0 } });
    } finally {
      await pool.close();
    }
  });

  it("aborts a call's fetch when the call ends, by cancel or by timeout", async () => {
    const limits = {
      timeoutMs: 300,
      memoryBytes: 32 << 20,
      stackBytes: 256 << 10,
      outputChars: 1000,
      consoleChars: 1000,
    };
    const pool = new SandboxPool(1);
    await pool.warm();
    try {
      for (const cancel of [true, false]) {
        let fetchAborted = false;
        const controller = new AbortController();
        // A fetch that never answers: only the end of the call can end it.
        const onFetch = (_request: unknown, signal: AbortSignal) => {
          if (cancel) setTimeout(() => controller.abort(), 20);
          return new Promise((_resolve, reject) =>
            signal.addEventListener("abort", () => ((fetchAborted = true), reject(new Error("aborted")))),
          );
        };
        const pending = pool.run(
          { mode: "snippet", code: "fetch('http://slow.test/')", limits },
          { fetch: onFetch },
          controller.signal,
        );
        expect(await pending).toMatchObject({ ok: false, error: { kind: cancel ? "cancelled" : "timeout" } });
        expect(fetchAborted).toBe(true);
      }
    } finally {
      await pool.close();
    }
  });

  it("fails warm() when a thread dies before it is ready, instead of waiting forever", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-worker-"));
    const broken = path.join(dir, "broken-worker.mjs");
    fs.writeFileSync(broken, "throw new Error('cannot start');");
    const pool = new SandboxPool(2, broken);
    await expect(pool.warm()).rejects.toThrow(/cannot start|exited/);
    await pool.close();
  });

  it("refuses fetch to private addresses from tool code", async () => {
    const result = await tool(
      "async function run() { const r = await fetch('http://127.0.0.1:1/'); return r.status; }",
    );
    expect(result).toMatchObject({ ok: false, error: { message: expect.stringContaining("not a public address") } });
  });
});

describe("a call's host requests", () => {
  it("are aborted when the call ends, a signal first asked for after it ends included, with no controller made for a call that sends none", () => {
    const Real = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Real {
      constructor() {
        super();
        made++;
      }
    };
    try {
      const silent = new HostRequests();
      silent.end();
      expect(made).toBe(0);

      const requests = new HostRequests();
      const during = requests.signal;
      expect(requests.signal).toBe(during);
      expect(during.aborted).toBe(false);
      requests.end();
      expect(during.aborted).toBe(true);
      expect(made).toBe(1);

      const late = new HostRequests();
      late.end();
      // A reply to a request that comes in after the call ended must find it over (python/pool.ts checks).
      expect(late.signal.aborted).toBe(true);
    } finally {
      globalThis.AbortController = Real;
    }
  });
});

describe("the policy check on each call", () => {
  const parsesOf = async (call: () => Promise<unknown>) => {
    const before = parses.count;
    await call();
    return parses.count - before;
  };

  it("parses code it passed before no more, and code it refused every time", async () => {
    const code = `function run() { return ${Math.random()}; }`;
    expect(await parsesOf(() => tool(code))).toBe(1);
    expect(await parsesOf(() => tool(code))).toBe(0);
    const refused = "function run() { return process.env; }";
    for (let i = 0; i < 2; i++) {
      let result: Awaited<ReturnType<typeof tool>> | undefined;
      expect(await parsesOf(async () => (result = await tool(refused)))).toBe(1);
      expect(result).toMatchObject({ ok: false, violations: [expect.objectContaining({ line: 1 })] });
    }
  });

  it("checks a snippet apart from a tool: passing as one does not pass the other's rules", async () => {
    const snippet = `${Math.random()} * 2`;
    expect(await sandbox.runInSandbox("snippet", { language: "javascript", code: snippet })).toMatchObject({
      ok: true,
    });
    expect(await tool(snippet)).toMatchObject({ ok: false, violations: [expect.anything()] });
  });
});

describe("tools.call, served by the host", () => {
  const limits = {
    timeoutMs: 2000,
    memoryBytes: 32 << 20,
    stackBytes: 256 << 10,
    outputChars: 10_000,
    consoleChars: 1000,
  };
  const code = `async function run({ text }) {
    const shouted = await tools.call("shout", { text });
    try { await tools.call("missing", {}); } catch (error) { return { shouted, error: error.message }; }
  }`;

  it("hands the call to the host, returns its output, and throws its error as an Error", async () => {
    const asked: unknown[] = [];
    const outcome = await sandbox.sandboxPool().run(
      { mode: "tool", code, input: { text: "hi" }, limits },
      {
        fetch: async () => ({}),
        callTool: async (request) => {
          asked.push(request);
          return request.name === "shout"
            ? { ok: true, output: "HI!" }
            : { ok: false, error: 'There is no tool named "missing".' };
        },
      },
    );
    expect(outcome).toMatchObject({ ok: true, output: { shouted: "HI!", error: 'There is no tool named "missing".' } });
    expect(asked).toEqual([
      { name: "shout", input: { text: "hi" } },
      { name: "missing", input: {} },
    ]);
  });

  it("reaches tools only by its name, which the policy sees: never as a property of the global object", async () => {
    const outcome = await sandbox.sandboxPool().run(
      {
        mode: "tool",
        code: `const realm = this;
        async function run() {
          const named = await tools.call("shout", {});
          return { named, global: typeof realm.tools, sloppy: typeof (function () { return this; })().tools };
        }`,
        limits,
      },
      { fetch: async () => ({}), callTool: async () => ({ ok: true, output: "HI!" }) },
    );
    expect(outcome).toMatchObject({ ok: true, output: { named: "HI!", global: "undefined", sloppy: "undefined" } });
    // Code that does not call tools keeps a `tools` of its own.
    const own = await sandbox
      .sandboxPool()
      .run(
        { mode: "tool", code: "const tools = ['hammer'];\nfunction run() { return tools; }", limits },
        { fetch: async () => ({}) },
      );
    expect(own).toMatchObject({ ok: true, output: ["hammer"] });
  });

  it("refuses tools.call where no caller serves it", async () => {
    const outcome = await sandbox
      .sandboxPool()
      .run(
        { mode: "tool", code: 'async function run() { return tools.call("shout", {}); }', limits },
        { fetch: async () => ({}) },
      );
    expect(outcome).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("tools.call is not available") },
    });
  });
});
