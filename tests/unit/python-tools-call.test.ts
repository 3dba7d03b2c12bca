import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_TOOL_CALLS, type ToolCallHandler, type ToolRequest } from "@/lib/sandbox/pool";
import { PythonPool, type PythonJob } from "@/lib/sandbox/python/pool";
import { config } from "@/lib/settings/config";
import { FIND_CHANNEL } from "../support/python-escapes";

// tools.call in Python tools, at the pool: the call's child blocks on its own connection to the pool's socket (the
// channel that brought its job) while this process serves the request through the job's handler. The handlers here
// stand in for lib/tools/call.ts' path (tool-call.test.ts).
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
      longName: "ToolCallError: tools.call's name must be a tool's name: a string of 1 to 256 characters.",
    });
    expect(asked).toEqual([]);
  });

  it("refuses a request larger than the API takes, as the called tool's error, serving none", async () => {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const code =
      "def run(inputs):\n    try:\n        return tools.call('shout', {'text': 'x' * 300000})\n" +
      "    except tools.ToolCallError as error:\n        return 'ToolCallError: ' + str(error)\n";
    expect(await run(code, { callTool })).toMatchObject({
      ok: true,
      output: `ToolCallError: The tools.call request is larger than ${config.maxRequestBytes} bytes.`,
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
    const chain = pool;
    // A slot beyond the pool's size starts when a nested call needs one, in its caller's time: its zygote imports the
    // libraries, about a second, several on a busy machine.
    const chainLimits = { ...limits, timeoutMs: 30_000 };
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
  }, 60_000);

  it("keeps calls from outside to the pool's size while nested ones take the processes beyond it", async () => {
    const small = pool;
    // The spare forked when the last call ended has connected: the first call starts at once, the second queues.
    await expect.poll(() => small.stats().ready).toBe(1);
    const slow = "def run(inputs):\n    n = 0\n    for i in range(3_000_000):\n        n += i\n    return n\n";
    const outside = [small.run({ mode: "tool", code: slow, limits }), small.run({ mode: "tool", code: slow, limits })];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(small.stats()).toMatchObject({ processes: 1, busy: 1, queued: 1 });
    await Promise.all(outside);
  }, 60_000);
});

/**
 * What the code finds of its channel with the first layer off: the descriptor of its connection, as an attacker finds
 * it (the first socket among the low descriptors), and `send(frame)`/`receive()` in the channel's framing (a 4-byte
 * length, then JSON) to write to it directly.
 */
const CHANNEL = `
import json, os, socket, stat, struct
${FIND_CHANNEL}
CHANNEL = channel()

def send_bytes(data):
    CHANNEL.sendall(struct.pack(">I", len(data)) + data)

def send(frame):
    send_bytes(json.dumps(frame).encode())

def receive():
    size = struct.unpack(">I", CHANNEL.recv(4, socket.MSG_WAITALL))[0]
    return json.loads(CHANNEL.recv(size, socket.MSG_WAITALL))
`;

describe("what tool code reaches through tools (the policy check off)", () => {
  it("finds a Python object and its own connection, never the host's objects", async () => {
    const { callTool } = host({});
    const code = `
import socket

def run(inputs):
    method = tools.call
    found = {
        "constructor": hasattr(tools, "constructor"),
        "closure": method.__func__.__closure__,
        "slots": type(tools).__slots__,
    }
    harness = method.__func__.__globals__
    connection = harness["_HOST"].connection
    found["channel"] = [type(connection).__name__, connection.family == socket.AF_UNIX, connection.fileno()]
    try:
        tools.x = 1
    except AttributeError as error:
        found["set"] = str(error)
    return found
`;
    const outcome = await run(code, { callTool, skipPolicy: true });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: true,
      output: { constructor: false, closure: null, slots: [], channel: ["socket", true, 3], set: expect.any(String) },
    });
  });

  it("answers malformed requests written straight to the channel with errors, serving none of them", async () => {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const code = `${CHANNEL}
def run(inputs):
    answers = []
    for frame in [
        {"call": "shout"},
        {"call": {"name": 5, "input": {}}},
        {"call": {"name": "shout"}},
        {"call": [1]},
        {"call": {"name": "", "input": 1}},
        {"http": {"method": "GET", "url": "http://127.0.0.1/"}},
    ]:
        send(frame)
        answers.append(receive()["error"])
    answers.append(tools.call("shout", {"text": "a"}))
    return answers
`;
    expect(await run(code, { callTool, skipPolicy: true })).toMatchObject({
      ok: true,
      output: [
        "A tools.call request is { name, input }.",
        "tools.call's name must be a tool's name: a string of 1 to 256 characters.",
        "A tools.call request is { name, input }.",
        "A tools.call request is { name, input }.",
        "tools.call's name must be a tool's name: a string of 1 to 256 characters.",
        "This code has no network here.",
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
    // The process ends with its call: a finalizer left for later finds the channel closed, if it runs at all.
    expect(await run("def run(inputs):\n    return 1\n")).toMatchObject({ ok: true, output: 1 });
    expect(asked).toEqual([{ name: "shout", input: { text: "during" } }]);
  });
});

/** `body` with this process's uncaught exceptions collected, rather than failing the run (or, on a server, ending it). */
async function collectingUncaught<T>(body: () => Promise<T>): Promise<{ value: T; uncaught: string[] }> {
  const saved = process.listeners("uncaughtException");
  const uncaught: string[] = [];
  const collect = (error: Error) => uncaught.push(String(error));
  process.removeAllListeners("uncaughtException");
  process.on("uncaughtException", collect);
  try {
    return { value: await body(), uncaught };
  } finally {
    process.off("uncaughtException", collect);
    for (const listener of saved) process.on("uncaughtException", listener);
  }
}

const within = <T>(promise: Promise<T>, ms = 3000) =>
  Promise.race([promise, new Promise<string>((resolve) => setTimeout(() => resolve(`no answer within ${ms} ms`), ms))]);

describe("a call that breaks its channel", () => {
  const BROKE = "The Python sandbox broke its channel.";
  /** Another caller's call right after: served as usual, its tools.call answered by its own handler. */
  async function nextCallerIsServed() {
    const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
    const outcome = await within(run("def run(inputs):\n    return tools.call('shout', {})\n", { callTool }));
    expect(outcome).toMatchObject({ ok: true, output: "!" });
    expect(asked).toEqual([{ name: "shout", input: {} }]);
  }
  const attacking = (line: string) => `${CHANNEL}
import time

def run(inputs):
    ${line}
    time.sleep(2)
    return "not reached"
`;

  it("fails as a crash when it writes what is not a frame, or a frame out of turn, and the next caller is served", async () => {
    const forms = {
      "not JSON": "send_bytes(b'not json')",
      "JSON but not an object": "send_bytes(b'\"a string\"')",
      "a length over the limit": "CHANNEL.sendall(struct.pack('>I', 2 ** 32 - 1))",
      "a second hello": "send({'hello': 'the token of another spare'})",
      "a frame of no kind": "send({'job': {'mode': 'tool'}})",
    };
    for (const [form, line] of Object.entries(forms)) {
      const { asked, callTool } = host({ shout: { ok: true, output: "!" } });
      const started = performance.now();
      const outcome = await within(run(attacking(line), { callTool, skipPolicy: true }));
      expect(outcome, form).toMatchObject({ ok: false, error: { kind: "crash", message: BROKE } });
      expect(performance.now() - started, form).toBeLessThan(1000);
      await nextCallerIsServed();
      expect(asked, form).toEqual([]);
    }
  });

  it("can forge only its own call's answer: the next caller gets its own", async () => {
    const forged = `${CHANNEL}
def run(inputs):
    send({"result": {"ok": True, "json": json.dumps({"forged": True}), "logs": ["forged"]}})
    return "the real answer"
`;
    expect(await within(run(forged, { skipPolicy: true }))).toMatchObject({
      ok: true,
      output: { forged: true },
      logs: ["forged"],
    });
    await nextCallerIsServed();
  });

  it("fails as a crash with a forged answer that is not JSON, and the host process carries on", async () => {
    // outcomeOf JSON.parses the answer's `json`: a throw there, in the socket's data handler, is an uncaught
    // exception of the server's process, and the call (already ended) never answers.
    const forged = `${CHANNEL}
def run(inputs):
    send({"result": {"ok": True, "json": "{"}})
    import time
    time.sleep(1)
    return "the real answer"
`;
    const { value: outcome, uncaught } = await collectingUncaught(() =>
      within(run(forged, { skipPolicy: true }), 2000),
    );
    expect({ outcome, uncaught }).toMatchObject({ outcome: { ok: false, error: { kind: "crash" } }, uncaught: [] });
    await nextCallerIsServed();
  });

  it("fails as a crash when it closes its channel, and the next caller is served", async () => {
    const closes = `${CHANNEL}
def run(inputs):
    os.close(CHANNEL.detach())
    os.close(tools.call.__func__.__globals__["_HOST"].connection.fileno())
    return 1
`;
    expect(await within(run(closes, { skipPolicy: true }))).toMatchObject({
      ok: false,
      error: { kind: "crash", message: "The Python sandbox process ended without an answer (exit code 70)." },
    });
    await nextCallerIsServed();
  });
});
