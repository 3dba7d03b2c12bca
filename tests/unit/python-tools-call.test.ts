import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_TOOL_CALLS, type ToolCallHandler, type ToolRequest } from "@/lib/sandbox/pool";
import { PythonPool, type PythonJob } from "@/lib/sandbox/python/pool";
import { config } from "@/lib/settings/config";

// tools.call in Python tools, at the pool: the process blocks on its channel (fd 4) while this process serves the
// request through the job's handler. The handlers here stand in for lib/tools/call.ts' path (tool-call.test.ts).
const limits = { ...config.sandbox, timeoutMs: 3000 };
const pool = new PythonPool(1, limits.memoryBytes);
beforeAll(() => pool.warm(), 120_000);
afterAll(() => pool.close());

/** A handler that records what it was asked and answers from `answers` by name. */
function host(answers: Record<string, { ok: true; output: unknown } | { ok: false; error: string }>) {
  const asked: ToolRequest[] = [];
  const callTool: ToolCallHandler = async (request) => {
    asked.push(request);
    return answers[request.name] ?? { ok: false, error: `There is no tool named "${request.name}".` };
  };
  return { asked, callTool };
}

const outputOf = (outcome: unknown) => (outcome as { output?: unknown }).output;

const run = (code: string, job: Partial<PythonJob> = {}, signal?: AbortSignal) =>
  pool.run({ mode: "tool", code, input: {}, limits, ...job }, signal);

describe("tools.call in a Python tool", () => {
  it("returns the called tool's output as Python values, and sends the input as JSON", async () => {
    const { asked, callTool } = host({ stats: { ok: true, output: { count: 2, words: ["a", "b"], ratio: 0.5 } } });
    const code =
      "def run(inputs):\n    got = tools.call('stats', {'text': inputs['text'], 'pair': (1, 2)})\n" +
      "    return [type(got).__name__, got['words'][1], got['count'] + 1, tools.call('stats')['ratio']]\n";
    expect(await run(code, { input: { text: "a b" }, callTool, skipPolicy: true })).toMatchObject({
      ok: true,
      output: ["dict", "b", 3, 0.5],
    });
    // A tuple goes as a list; no input is {}, as in JavaScript.
    expect(asked).toEqual([
      { name: "stats", input: { text: "a b", pair: [1, 2] } },
      { name: "stats", input: {} },
    ]);
  });

  it("raises tools.ToolCallError with the called tool's error, which the tool may catch by name", async () => {
    const { callTool } = host({});
    const caught =
      "def run(inputs):\n    try:\n        tools.call('missing', {})\n    except tools.ToolCallError as error:\n" +
      "        return 'caught: ' + str(error)\n";
    expect(await run(caught, { callTool })).toMatchObject({
      ok: true,
      output: 'caught: There is no tool named "missing".',
    });
    const uncaught = "def run(inputs):\n    x = 1\n    return tools.call('missing', {})\n";
    expect(await run(uncaught, { callTool })).toMatchObject({
      ok: false,
      error: { kind: "error", message: 'ToolCallError: There is no tool named "missing". (line 3)' },
    });
  });

  it("is refused where no caller serves it, and for a name or an input that cannot be sent", async () => {
    const code = (call: string) =>
      `def run(inputs):\n    try:\n        return ${call}\n    except (tools.ToolCallError, TypeError) as error:\n` +
      "        return ('TypeError: ' if isinstance(error, TypeError) else 'ToolCallError: ') + str(error)\n";
    expect(await run(code("tools.call('shout', {})"))).toMatchObject({ output: `ToolCallError: ${NO_TOOL_CALLS}` });
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const tries = {
      name: "tools.call(7, {})",
      input: "tools.call('shout', {'f': run})",
      huge: "tools.call('shout', {'text': 'x' * 300000})",
      longName: "tools.call('s' * 300, {})",
    };
    const outcomes = Object.fromEntries(
      await Promise.all(
        Object.entries(tries).map(async ([key, call]) => [key, outputOf(await run(code(call), { callTool }))]),
      ),
    );
    expect(outcomes).toEqual({
      name: "TypeError: tools.call's first argument is the tool's name, a str (got int).",
      input: expect.stringMatching(
        /^TypeError: tools.call\('shout', ...\): the input is not JSON: input\['f'\] is a function/,
      ),
      huge: `ToolCallError: The tools.call request is larger than ${config.maxRequestBytes} bytes.`,
      longName: "ToolCallError: tools.call's name must be a tool's name: a string of 1 to 256 characters.",
    });
    expect(asked).toEqual([]);
  });

  it("refuses a result larger than the channel carries, as the called tool's error", async () => {
    const { callTool } = host({ big: { ok: true, output: "y".repeat(7 * config.toolOutputChars + 65536) } });
    const code =
      "def run(inputs):\n    try:\n        return len(tools.call('big', {}))\n" +
      "    except tools.ToolCallError as error:\n        return str(error)\n";
    expect(await run(code, { callTool })).toMatchObject({
      ok: true,
      output: expect.stringMatching(/^The called tool's result is larger than the \d+ bytes tools.call carries\.$/),
    });
  });

  it("counts an inner call's time as the caller's: an overrun kills the caller and aborts the inner call", async () => {
    let aborted: number | undefined;
    const started = performance.now();
    const callTool: ToolCallHandler = (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => {
          aborted = performance.now() - started;
          resolve({ ok: true, output: "too late" });
        }),
      );
    const outcome = await run("def run(inputs):\n    return tools.call('slow', {})\n", {
      callTool,
      limits: { ...limits, timeoutMs: 500 },
    });
    expect(outcome).toMatchObject({ ok: false, error: { kind: "timeout" } });
    expect(aborted).toBeGreaterThanOrEqual(500);
    expect(aborted).toBeLessThan(1500);
    // The next call gets a new process, whose channel is clean.
    const { callTool: next } = host({ shout: { ok: true, output: "HI" } });
    expect(await run("def run(inputs):\n    return tools.call('shout', {})\n", { callTool: next })).toMatchObject({
      ok: true,
      output: "HI",
    });
  });

  it("aborts the inner call when the caller is cancelled", async () => {
    const stop = new AbortController();
    let innerAborted = false;
    const callTool: ToolCallHandler = (_request, signal) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => ((innerAborted = true), resolve({ ok: false, error: "stopped" })));
        setTimeout(() => stop.abort(), 50);
      });
    const outcome = await run("def run(inputs):\n    return tools.call('slow', {})\n", { callTool }, stop.signal);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(innerAborted).toBe(true);
  });
});

describe("nested Python calls", () => {
  it("runs a chain python → python → python on a pool of one process, which gets its size back after", async () => {
    const chain = new PythonPool(1, limits.memoryBytes);
    // A process beyond the pool's size starts when a nested call needs one, in its caller's time: about a second from
    // the memory image, several on a busy machine.
    const chainLimits = { ...limits, timeoutMs: 30_000 };
    await chain.warm();
    const relay =
      "def run(inputs):\n    return tools.call('next', {'depth': inputs['depth'] + 1}) + [inputs['depth']]\n";
    const last = "def run(inputs):\n    return [inputs['depth']]\n";
    // Each level's tools.call runs the next level on the same pool, nested, as lib/tools/call.ts would.
    let busiest = 0;
    const level =
      (depth: number): ToolCallHandler =>
      async (request, signal) => {
        const outcome = await chain.run(
          {
            mode: "tool",
            code: depth === 2 ? last : relay,
            input: request.input,
            limits: chainLimits,
            nested: true,
            callTool: level(depth + 1),
          },
          signal,
        );
        // Each level's process is still there as its caller reads its answer: three at the deepest.
        busiest = Math.max(busiest, chain.stats().processes);
        return outcome.ok ? { ok: true, output: outputOf(outcome) } : { ok: false, error: "failed" };
      };
    const outcome = await chain.run({
      mode: "tool",
      code: relay,
      input: { depth: 0 },
      limits: chainLimits,
      callTool: level(1),
    });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, output: [2, 1, 0] });
    expect(busiest).toBe(3);
    // The processes beyond the pool's size end once idle.
    await expect.poll(() => chain.stats().processes, { timeout: 5000 }).toBe(1);
    await chain.close();
  }, 60_000);

  it("keeps calls from outside to the pool's size while nested ones take the processes beyond it", async () => {
    const small = new PythonPool(1, limits.memoryBytes);
    await small.warm();
    const slow = "def run(inputs):\n    n = 0\n    for i in range(3_000_000):\n        n += i\n    return n\n";
    const outside = [small.run({ mode: "tool", code: slow, limits }), small.run({ mode: "tool", code: slow, limits })];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(small.stats()).toMatchObject({ processes: 1, busy: 1, queued: 1 });
    await Promise.all(outside);
    await small.close();
  }, 60_000);
});

describe("what tool code reaches through tools (the policy check off)", () => {
  it("finds a Python object and a file descriptor, never a JavaScript one", async () => {
    const { callTool } = host({});
    const code = `
def run(inputs):
    method = tools.call
    found = {
        "constructor": hasattr(tools, "constructor"),
        "closure": method.__func__.__closure__,
        "slots": type(tools).__slots__,
    }
    harness = method.__func__.__globals__
    found["fd"] = type(harness["_TOOLS_FD"]).__name__
    found["js"] = sorted({type(o).__name__ for o in harness["gc"].get_objects() if type(type(o)).__name__ == "_JsProxyMetaClass"})
    try:
        tools.x = 1
    except AttributeError as error:
        found["set"] = str(error)
    return found
`;
    const outcome = await run(code, { callTool, skipPolicy: true });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: true,
      output: { constructor: false, closure: null, slots: [], fd: "int", js: [], set: expect.any(String) },
    });
  });

  it("answers malformed requests written straight to the channel with errors, serving none of them", async () => {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const code = `
def run(inputs):
    harness = tools.call.__func__.__globals__
    os, fd = harness["os"], harness["_TOOLS_FD"]
    answers = []
    for request in [b"not json", b'{"name": 5, "input": {}}', b'{"name": "shout"}', b"[1]", b'{"name": "", "input": 1}']:
        os.write(fd, request)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        answers.append(harness["json"].loads(b"".join(chunks))["error"])
    answers.append(tools.call("shout", {"text": "a"}))
    return answers
`;
    expect(await run(code, { callTool, skipPolicy: true })).toMatchObject({
      ok: true,
      output: [
        "The tools.call request is not JSON.",
        "tools.call's name must be a tool's name: a string of 1 to 256 characters.",
        "A tools.call request is { name, input }.",
        "A tools.call request is { name, input }.",
        "tools.call's name must be a tool's name: a string of 1 to 256 characters.",
        "!",
      ],
    });
    expect(asked).toEqual([{ name: "shout", input: { text: "a" } }]);
  });

  it("refuses a call made after the answer, from a finalizer the call left for the garbage collector", async () => {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const code = `
class Later:
    def __del__(self):
        tools.call("shout", {"text": "after"})

def run(inputs):
    later = Later()
    later.cycle = later
    return tools.call("shout", {"text": "during"})
`;
    expect(await run(code, { callTool, skipPolicy: true })).toMatchObject({ ok: true, output: "!" });
    // The next call runs once the process has settled (and collected the cycle), or on a new process.
    expect(await run("def run(inputs):\n    return 1\n")).toMatchObject({ ok: true, output: 1 });
    expect(asked).toEqual([{ name: "shout", input: { text: "during" } }]);
  });
});

describe("a call that breaks the channel", () => {
  it("gets its process replaced: the next call's tools.call works", async () => {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const closes =
      "def run(inputs):\n    harness = tools.call.__func__.__globals__\n    harness['os'].close(harness['_TOOLS_FD'])\n    return 1\n";
    expect(await run(closes, { skipPolicy: true })).toMatchObject({ ok: true, output: 1 });
    expect(await run("def run(inputs):\n    return tools.call('shout', {})\n", { callTool })).toMatchObject({
      ok: true,
      output: "!",
    });
    expect(asked).toHaveLength(1);
    expect(pool.stats().recycled).toBeGreaterThanOrEqual(1);
  });
});
