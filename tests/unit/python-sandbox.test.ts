import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PythonPoolStats } from "@/lib/sandbox/python/pool";

const LIMIT_MS = 500;
process.env.TOOLSMITH_TOOL_TIMEOUT_MS = String(LIMIT_MS);
process.env.TOOLSMITH_TOOL_MEMORY_MB = "32";
// A pool of one: each call's next lands on the same slot, so what one call leaves is what the next would find.
process.env.TOOLSMITH_PYTHON_WORKERS = "1";
type Sandbox = typeof import("@/lib/sandbox");
let sandbox: Sandbox;
let whileWarming: PythonPoolStats;

beforeAll(async () => {
  sandbox = await import("@/lib/sandbox");
  const warming = sandbox.pythonPool().warm();
  whileWarming = sandbox.pythonPool().stats();
  await warming;
});
afterAll(async () => sandbox.pythonPool().close());

const python = (code: string) => ({ language: "python" as const, code });
const tool = (code: string, input: unknown = {}, signal?: AbortSignal) =>
  sandbox.runInSandbox("tool", python(code), input, signal);
const check = (code: string, requireEntryPoint = true) => sandbox.checkSource(python(code), { requireEntryPoint });

/** Every limit ends the call within the time limit plus a second, and the next call is answered at once. */
async function endsWithinTheLimit(code: string, kind: string) {
  const started = performance.now();
  const result = await tool(code);
  expect(performance.now() - started).toBeLessThan(LIMIT_MS + 1000);
  expect(result).toMatchObject({ ok: false, error: { kind } });
  const next = performance.now();
  expect(await tool("def run(inputs):\n    return 'still here'\n")).toMatchObject({ ok: true, output: "still here" });
  expect(performance.now() - next).toBeLessThan(1000);
  return result;
}

describe("the Python pool", () => {
  it("reports its slots: started while warming, then ready with a child forked and connected for the next call", async () => {
    expect(whileWarming).toMatchObject({ available: true, processes: 1, ready: 0, busy: 0, queued: 0 });
    const pool = sandbox.pythonPool();
    await expect.poll(() => pool.stats().ready).toBe(1);
    const stats = pool.stats();
    expect(stats).toMatchObject({ available: true, processes: 1, busy: 0, queued: 0 });
    expect(stats.residentBytes).toHaveLength(1);
    expect(stats.residentBytes[0]).toBeGreaterThan(10 * 1024 * 1024);
  });
});

describe("the Python policy", () => {
  it("passes a plain tool and a SEAT-style module whose only function has another name", async () => {
    expect(await check("import math\n\ndef run(inputs):\n    return math.sqrt(inputs['x'])\n")).toEqual({ ok: true });
    expect(await check("def celsius_to_fahrenheit(celsius):\n    return celsius * 9 / 5 + 32\n")).toEqual({ ok: true });
  });

  it("refuses imports outside the allowlist, private names and banned builtins, each with its line and column", async () => {
    const result = await check(
      "import os\nfrom subprocess import run as go\n\ndef run(inputs):\n    x = ().__class__\n    return eval('1')\n",
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations).toEqual([
      expect.objectContaining({ line: 1, column: 1, message: expect.stringContaining("Importing `os`") }),
      expect.objectContaining({ line: 2, column: 1, message: expect.stringContaining("Importing `subprocess`") }),
      expect.objectContaining({ line: 5, column: 9, message: expect.stringContaining("`.__class__`") }),
      expect.objectContaining({ line: 6, column: 12, message: expect.stringContaining("`eval` is not allowed") }),
    ]);
  });

  it("refuses what reaches frames, format fields, match patterns and strings naming internals", async () => {
    const forms = {
      frames: "def run(inputs):\n    g = (x for x in [1])\n    return g.gi_frame.f_back\n",
      format: "def run(inputs):\n    return '{0._secret}'.format(inputs)\n",
      match: "def run(inputs):\n    match inputs:\n        case dict(_x=y):\n            return y\n",
      dunder: "def run(inputs):\n    return 'x'.join(['__class__'])\n",
      lookalike: "def run(inputs):\n    return ｅｖａｌ('1')\n",
      keyword: "def run(inputs):\n    return dict(__x=1)\n",
      // A class made at run time can name any attribute in __match_args__: a positional pattern would read it.
      positional:
        "P = type('P', (), {})\n\ndef run(inputs):\n    match inputs:\n        case P(value):\n            return value\n",
    };
    for (const [form, code] of Object.entries(forms)) {
      expect((await check(code)).ok, form).toBe(false);
    }
  });

  it("refuses the routes of the breach between callers, each naming its rule at its line", async () => {
    const U = "chr(95) + chr(95)";
    const forms: Record<string, [string, RegExp]> = {
      // str.format of a field built at run time reads what it names; AttributeError.obj hands over the object.
      runtimeFormat: [`def run(inputs):\n    return ('{0.' + ${U} + 'class' + ${U} + '}').format(1)\n`, /literal/],
      strFormat: ["def run(inputs):\n    return str.format('{0}', 1)\n", /string literal/],
      errorObject: [
        "def run(inputs):\n    try:\n        inputs.x\n    except AttributeError as e:\n        return e.obj\n",
        /\.obj/,
      ],
      bytesDunder: ["def run(inputs):\n    return b'__class__'.decode()\n", /Bytes naming internals/],
      reboundType: [
        "class P:\n    pass\n\nint = P\n\ndef run(inputs):\n    match inputs:\n        case int(v):\n            return v\n",
        /`int` is a built-in type and cannot be rebound/,
      ],
      hiddenByPattern: [
        "import string\n\nMODULE = type(string)\n\ndef run(inputs):\n    match string:\n        case MODULE(Formatter=f):\n            return f\n",
        /Matching on attribute `Formatter`/,
      ],
      formatByPattern: [
        "def run(inputs):\n    match str:\n        case type(format=f):\n            return f\n",
        /format/,
      ],
      reachedModule: [
        "import pandas as pd\n\ndef run(inputs):\n    return pd.io.common.os.getcwd()\n",
        /`\.os` is not allowed/,
      ],
      bs4Os: ["import bs4\n\ndef run(inputs):\n    return bs4.os.environ\n", /`\.os`/],
      wraps: ["import functools\n\ndef run(inputs):\n    return functools.wraps\n", /`\.wraps`/],
      pandasEval: ["import pandas as pd\n\ndef run(inputs):\n    return pd.eval('1 + 1')\n", /`\.eval`/],
      outsideList: [
        "import subprocess\n\ndef run(inputs):\n    return 1\n",
        /Importing `subprocess` is not allowed\. Tools may import: json, re/,
      ],
    };
    for (const [form, [code, message]] of Object.entries(forms)) {
      const verdict = await check(code);
      expect(verdict.ok, form).toBe(false);
      if (!verdict.ok) {
        expect(verdict.violations.map((violation) => violation.message).join(" | "), form).toMatch(message);
        expect(verdict.violations[0].line, form).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it("passes what a data tool writes: pandas, numpy, charts, requests, bs4, a literal's format", async () => {
    const code = [
      "import matplotlib.pyplot as plt",
      "import numpy as np",
      "import pandas as pd",
      "import requests",
      "from bs4 import BeautifulSoup",
      "from urllib.parse import urlencode",
      "",
      "def run(inputs):",
      "    frame = pd.DataFrame({'a': np.arange(3)})",
      "    plt.plot(frame['a'])",
      "    title = '{} rows'.format(len(frame))",
      "    return {'table': frame.to_markdown(), 'title': title, 'query': urlencode({'q': 'x'}), 'ok': callable(requests.get), 'soup': BeautifulSoup('<b>x</b>', 'html.parser').b.text}",
    ].join("\n");
    expect(await check(code)).toEqual({ ok: true });
    expect(await tool(code, {})).toMatchObject({
      ok: true,
      output: { title: "3 rows", query: "q=x", ok: true, soup: "x" },
    });
  });

  it("allows the patterns that read nothing hidden: a built-in type's own, and attributes by name", async () => {
    const code =
      "def run(inputs):\n    match inputs['v']:\n        case int(n):\n        " +
      "    return n\n        case dict(x=0):\n            return 0\n        case _:\n            return None\n";
    expect(await check(code)).toEqual({ ok: true });
    expect(await tool(code, { v: 7 })).toMatchObject({ ok: true, output: 7 });
  });

  it("says what to install when a library is missing on the server", async () => {
    // Imported here, not above: the settings this file sets are read when the sandbox's modules load.
    const { startProblem } = await import("@/lib/sandbox/python/pool");
    const stderr = "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'pandas'\n";
    expect(startProblem(stderr)).toBe(
      "Python's pandas is not installed on the server, so Python tools are off (npm run setup, or on Debian: " +
        "apt-get install bubblewrap python3 python3-seccomp python3-numpy python3-pandas python3-matplotlib " +
        "python3-bs4 python3-requests python3-tabulate python3-openpyxl).",
    );
    expect(startProblem("bwrap: No permissions to create a new namespace\n")).toBe(
      "The Python sandbox could not start: bwrap: No permissions to create a new namespace",
    );
  });

  it("says what is missing: a syntax error's line, a module without a function, an async entry point", async () => {
    const syntax = await check("def run(inputs):\n    return (1 +\n");
    expect(syntax).toMatchObject({ ok: false, violations: [{ message: expect.stringContaining("does not parse") }] });
    if (!syntax.ok) expect(syntax.violations[0].line).toBeGreaterThanOrEqual(2);
    expect(await check("x = 1\n")).toMatchObject({
      ok: false,
      violations: [{ message: expect.stringContaining("def run(inputs):") }],
    });
    expect(await check("def a(x):\n    return 1\n\ndef b(x):\n    return 2\n")).toMatchObject({
      ok: false,
      violations: [{ message: expect.stringContaining("It defines a, b, but none is named run") }],
    });
    expect(await check("async def run(inputs):\n    return 1\n")).toMatchObject({ ok: false });
    expect(await check("x = 1\nx + 1", false)).toEqual({ ok: true });
  });

  it("checks again when the code runs, whatever checked it before", async () => {
    const result = await tool("import os\n\ndef run(inputs):\n    return os.getcwd()\n");
    expect(result).toMatchObject({ ok: false, violations: [expect.objectContaining({ line: 1 })] });
  });
});

describe("a Python call", () => {
  it("calls run with the input and returns its value, with what it printed", async () => {
    const result = await tool(
      "def run(inputs):\n    print('adding', inputs['a'], inputs['b'])\n    return {'sum': inputs['a'] + inputs['b']}\n",
      { a: 2, b: 3 },
    );
    expect(result).toMatchObject({ ok: true, output: { sum: 5 }, logs: ["adding 2 3"] });
  });

  it("calls a SEAT-style function with the input's fields as keyword arguments", async () => {
    expect(
      await tool("def celsius_to_fahrenheit(celsius):\n    return celsius * 9 / 5 + 32\n", { celsius: 100 }),
    ).toMatchObject({ ok: true, output: 212, text: "212.0" });
    expect(
      await tool("def count_words(data):\n    return len(data['text'].split())\n", { text: "a b c" }),
    ).toMatchObject({
      ok: true,
      output: 3,
    });
  });

  it("hands back Python's str() of the value beside its JSON, which cannot tell 212.0 from 212", async () => {
    expect(
      await tool("def run(inputs):\n    return {'ok': True, 'n': 2.0, 'none': None, 'pair': (1, 'a')}\n"),
    ).toMatchObject({
      output: { ok: true, n: 2, none: null, pair: [1, "a"] },
      text: "{'ok': True, 'n': 2.0, 'none': None, 'pair': (1, 'a')}",
    });
    expect(await tool("def run(inputs):\n    return 'plain'\n")).toMatchObject({ output: "plain", text: "plain" });
  });

  it("converts tuples, sets and dates as documented, and names a value JSON cannot carry", async () => {
    const converted = await tool(
      "import datetime\n\ndef run(inputs):\n    return {'t': (1, 2), 's': {3, 1, 2}, 'd': datetime.date(2026, 11, 28), 1: None}\n",
    );
    expect(converted).toMatchObject({ ok: true, output: { t: [1, 2], s: [1, 2, 3], d: "2026-11-28", "1": null } });
    const refusals = {
      "output['x'] is nan": "def run(inputs):\n    return {'x': float('nan')}\n",
      "is bytes": "def run(inputs):\n    return b'abc'\n",
      "is a Decimal": "import decimal\n\ndef run(inputs):\n    return decimal.Decimal('1.5')\n",
    };
    for (const [message, code] of Object.entries(refusals)) {
      expect(await tool(code)).toMatchObject({
        ok: false,
        error: { kind: "error", message: expect.stringContaining(message) },
      });
    }
  });

  it("returns a snippet's last value and what it printed", async () => {
    const result = await sandbox.runInSandbox(
      "snippet",
      python("import statistics\nxs = [1, 2, 3, 4]\nprint('n', len(xs))\nstatistics.mean(xs)"),
    );
    expect(result).toMatchObject({ ok: true, output: 2.5, logs: ["n 4"] });
  });

  it("names the exception and the line of the tool where it was raised", async () => {
    const result = await tool("def run(inputs):\n    values = []\n    return values[3]\n");
    expect(result).toMatchObject({
      ok: false,
      error: { kind: "error", message: "IndexError: list index out of range (line 3)" },
    });
  });

  it("ends the call, not the process, on SystemExit and KeyboardInterrupt", async () => {
    expect(await tool("def run(inputs):\n    raise SystemExit(3)\n")).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("SystemExit") },
    });
    expect(await tool("def run(inputs):\n    raise KeyboardInterrupt\n")).toMatchObject({ ok: false });
    expect(await tool("def run(inputs):\n    return 1\n")).toMatchObject({ ok: true, output: 1 });
  });
});

describe("the Python sandbox's limits", () => {
  // Each limit kills a process: the pool is whole again before the next, as a server is between rare failures.
  beforeEach(() => sandbox.pythonPool().warm());

  it("stops an endless loop", () => endsWithinTheLimit("def run(inputs):\n    while True:\n        pass\n", "timeout"));
  it("stops a loop inside C code that never returns to the interpreter", () =>
    endsWithinTheLimit("def run(inputs):\n    return sum(range(10 ** 15))\n", "timeout"));
  it("stops a catastrophic regular expression", () =>
    endsWithinTheLimit(
      "import re\n\ndef run(inputs):\n    return bool(re.match('(a+)+$', 'a' * 64 + 'b'))\n",
      "timeout",
    ));
  it("stops a giant power", () => endsWithinTheLimit("def run(inputs):\n    return 7 ** (10 ** 10) % 10\n", "timeout"));
  it("stops a memory bomb", async () => {
    const result = await endsWithinTheLimit(
      "def run(inputs):\n    data = []\n    while True:\n        data.append('x' * 10 ** 6)\n",
      "memory",
    );
    expect(result).toMatchObject({ error: { message: expect.stringContaining("32 MB memory limit") } });
  });
  it("caps a print flood and stops it at the time limit", async () => {
    const result = await endsWithinTheLimit(
      "def run(inputs):\n    while True:\n        print('flood' * 100)\n",
      "timeout",
    );
    expect(result.logs).toEqual([]);
  });
  it("caps printed output and a large result", async () => {
    const printed = await tool(
      "def run(inputs):\n    for i in range(10000):\n        print('line', i)\n    return 'done'\n",
    );
    expect(printed).toMatchObject({ ok: true, output: "done", consoleTruncated: true });
    expect(printed.logs.join("\n").length).toBeLessThanOrEqual(8192);
    const large = await tool("def run(inputs):\n    return 'x' * 10 ** 6\n");
    expect(large).toMatchObject({ ok: true, outputTruncated: true });
  });
  it("stops a spinning call within 100 ms of its run being stopped", async () => {
    const controller = new AbortController();
    const pending = tool("def run(inputs):\n    while True:\n        pass\n", {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = performance.now();
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { kind: "cancelled" } });
    expect(performance.now() - stopped).toBeLessThan(100);
  });
});

describe("nothing crosses Python calls", () => {
  /** With the policy off (skipPolicy turns the first layer off whole), as code that got past it could run. */
  const unchecked = async (code: string) => {
    const limits = {
      timeoutMs: 5000,
      memoryBytes: 32 << 20,
      stackBytes: 256 << 10,
      outputChars: 1e5,
      consoleChars: 8192,
    };
    const outcome = await sandbox.pythonPool().run({ mode: "tool", code, input: {}, skipPolicy: true, limits });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
    return (outcome as { output: Record<string, unknown> }).output;
  };
  const MODULES = `
import collections, collections.abc, decimal, json, math, os, random, statistics, sys, warnings
import matplotlib
import numpy as np
import pandas as pd

class Fake:
    pass
`;

  it("leaves none of one call's changes to modules, libraries' settings, generators or files in the next", async () => {
    const poison = `${MODULES}
def run(inputs):
    json.dumps = lambda *args, **kwargs: "poisoned"
    math.pi = 3
    pd.DataFrame.to_dict = lambda self, *args, **kwargs: "poisoned"
    pd.set_option("display.max_rows", 3)
    np.set_printoptions(precision=1)
    matplotlib.rcParams["lines.linewidth"] = 42
    warnings.showwarning = lambda *args, **kwargs: None
    random.seed(1)
    np.random.seed(1)
    decimal.getcontext().prec = 3
    sys.setrecursionlimit(200)
    collections.Counter.most_common = lambda self, n=None: "poisoned"
    collections.abc.Mapping.register(Fake)
    statistics.mean.cache = "poisoned"
    written = {}
    for path in ["/tmp/planted", "/dev/shm/planted"]:
        try:
            with open(path, "w") as file:
                file.write("planted")
            written[path] = "written"
        except OSError as error:
            written[path] = error.strerror
    return written
`;
    const probe = `${MODULES}
def run(inputs):
    return {
        "dumps": json.dumps([1]),
        "pi": math.pi,
        "to_dict": pd.DataFrame({"a": [1]}).to_dict("records"),
        "max_rows": pd.get_option("display.max_rows"),
        "precision": np.get_printoptions()["precision"],
        "linewidth": matplotlib.rcParams["lines.linewidth"],
        "showwarning": warnings.showwarning.__name__,
        "decimal": str(decimal.Decimal(1) / decimal.Decimal(3)),
        "recursion": sys.getrecursionlimit(),
        "counter": collections.Counter("aab").most_common(1),
        "registered": isinstance(Fake(), collections.abc.Mapping),
        "cache": hasattr(statistics.mean, "cache"),
        "files": os.listdir("/tmp") + os.listdir("/dev/shm"),
        "random": [random.random(), random.random() == random.Random(1).random()],
        "numpy": [float(np.random.random()), float(np.random.random()) == np.random.RandomState(1).random_sample()],
        "pid": os.getpid(),
    }
`;
    const before = await unchecked(probe);
    // The poisoned call answers all the same: the harness holds its own json.dumps.
    expect(await unchecked(poison)).toEqual({ "/tmp/planted": "written", "/dev/shm/planted": "Read-only file system" });
    const first = await unchecked(probe);
    const second = await unchecked(probe);
    const settled = ({ random: _random, numpy: _numpy, pid: _pid, ...rest }: Record<string, unknown>) => rest;
    expect(settled(before)).toEqual({
      dumps: "[1]",
      pi: Math.PI,
      to_dict: [{ a: 1 }],
      max_rows: 60,
      precision: 8,
      linewidth: expect.any(Number),
      showwarning: "showwarning",
      decimal: "0.3333333333333333333333333333",
      recursion: expect.any(Number),
      counter: [["a", 2]],
      registered: false,
      cache: false,
      files: [],
    });
    expect(before.linewidth).not.toBe(42);
    expect(before.recursion).toBeGreaterThan(200);
    expect(settled(first)).toEqual(settled(before));
    expect(settled(second)).toEqual(settled(before));
    // Every call draws its own numbers, with random and with numpy, none from the poisoned seed; in its own process.
    const draws = [before, first, second];
    for (const generator of ["random", "numpy"] as const) {
      const values = draws.map((draw) => (draw[generator] as [number, boolean])[0]);
      expect(new Set(values).size, generator).toBe(3);
      for (const draw of draws) expect((draw[generator] as [number, boolean])[1], generator).toBe(false);
    }
    expect(new Set(draws.map((draw) => draw.pid)).size).toBe(3);
  });

  it("answers ordinary calls alike, time after time, whatever the allowed modules set up lazily", async () => {
    const ordinary = `
import base64, collections, datetime, decimal, fractions, hashlib, json, re, statistics, textwrap

def run(inputs):
    return [
        collections.Counter('abracadabra').most_common(2),
        datetime.datetime.strptime('2026-11-28', '%Y-%m-%d').isoformat(),
        str(decimal.Decimal('1.10') + decimal.Decimal('2.20')),
        str(fractions.Fraction(1, 3) * 3),
        hashlib.sha256(b'x').hexdigest()[:8],
        base64.a85encode(b'toolsmith').decode(),
        re.sub(r'\\s+', ' ', textwrap.dedent('  a   b')),
        statistics.median([3, 1, 2]),
        json.dumps({'a': 1}),
    ]
`;
    const first = await tool(ordinary);
    expect(first).toMatchObject({ ok: true });
    for (let i = 0; i < 5; i++)
      expect(await tool(ordinary)).toMatchObject({ ok: true, output: first.ok && first.output });
  });

  it("leaves a class one call changed, or a finalizer it hid to change it later, pristine for the next calls", async () => {
    const probe =
      "import collections\n\ndef run(inputs):\n    junk = [[n] for n in range(20000)]\n    return collections.Counter('aab').most_common(1)\n";
    const forms = {
      changed:
        "import collections\n\ndef run(inputs):\n    collections.Counter.most_common = lambda self, n=None: 'late'\n    return 'done'\n",
      // A class made at run time can have a finalizer; a cycle keeps the object until a later collection.
      finalizer:
        "import collections\n\ndef poison(self):\n    collections.Counter.most_common = lambda self, n=None: 'late'\n\n" +
        "Late = type('Late', (), {'_' * 2 + 'del' + '_' * 2: poison})\n\ndef run(inputs):\n    planted = Late()\n" +
        "    planted.me = planted\n    return 'done'\n",
    };
    for (const [form, code] of Object.entries(forms)) {
      expect(await tool(code), form).toMatchObject({ ok: true, output: "done" });
      const answers = await Promise.all(Array.from({ length: 4 }, () => tool(probe)));
      for (const answer of answers) expect(answer, form).toMatchObject({ ok: true, output: [["a", 2]] });
    }
  });

  it("gives each call fresh module globals", async () => {
    const code = "seen = []\n\ndef run(inputs):\n    seen.append(1)\n    return len(seen)\n";
    expect(await tool(code)).toMatchObject({ output: 1 });
    expect(await tool(code)).toMatchObject({ output: 1 });
  });
});

describe("the tools a Python tool says it calls (uses)", () => {
  const uses = ["shout", "github__search"];
  const at = async (code: string) => {
    const result = await sandbox.checkSource(python(code), { uses });
    return result.ok ? [] : result.violations;
  };

  it("passes tools.call with a literal name listed in uses, an MCP tool's `__` included", async () => {
    const code =
      "def run(inputs):\n    a = tools.call('shout', {'text': inputs['text']})\n" +
      "    return tools.call(\"github__search\", {'q': a})\n";
    expect(await sandbox.checkSource(python(code), { uses })).toEqual({ ok: true });
    // Before each call the check has no uses: the MCP tool's name passes it too.
    expect(await sandbox.checkSource(python(code))).toEqual({ ok: true });
    expect(await sandbox.checkSource(python("def run(inputs):\n    return 1\n"), { uses: [] })).toEqual({ ok: true });
  });

  it("passes catching a call's error by its name, tools.ToolCallError", async () => {
    const code =
      "def run(inputs):\n    try:\n        return tools.call('shout', {})\n" +
      "    except tools.ToolCallError as error:\n        return str(error)\n";
    expect(await sandbox.checkSource(python(code), { uses })).toEqual({ ok: true });
  });

  it("refuses a name not in uses, saying what to add, at its line and column", async () => {
    expect(await at("def run(inputs):\n    x = 1\n    return tools.call('whisper', {})\n")).toEqual([
      { line: 3, column: 23, message: 'tools.call("whisper") names a tool not in uses: add "whisper" to uses.' },
    ]);
  });

  it("refuses a name that is not a literal: computed, a variable, an f-string, unpacked, a keyword, none", async () => {
    const forms = [
      "    return tools.call('sh' + 'out', {})",
      "    name = 'shout'\n    return tools.call(name, {})",
      "    return tools.call(f\"{'shout'}\", {})",
      "    return tools.call(*['shout', {}])",
      "    return tools.call(name='shout')",
      "    return tools.call()",
    ];
    for (const form of forms) {
      const violations = await at(`def run(inputs):\n${form}\n`);
      expect(violations, form).toEqual([
        expect.objectContaining({
          message: expect.stringContaining("tools.call needs the tool's name as a string literal"),
        }),
      ]);
      expect(violations[0].line, form).toBe(form.split("\n").length + 1);
    }
  });

  it("refuses `tools` used any other way than a direct tools.call, which would hide what is called", async () => {
    const forms = [
      "    call = tools.call\n    return call('whisper', {})",
      "    return helper(tools)",
      "    return [t.call('whisper', {}) for t in [tools]]",
      "    tools = Other()\n    return tools.call('shout', {})",
      "    global tools\n    return tools.call('shout', {})",
      "    return type(tools).call(tools, 'whisper', {})",
    ];
    for (const form of forms) {
      const violations = await at(`def run(inputs):\n${form}\n`);
      expect(
        violations.some((violation) => violation.message.startsWith("`tools` may only be used as tools.call")),
        form,
      ).toBe(true);
    }
    expect(await at("def run(inputs, tools=None):\n    return tools.call('shout', {})\n")).toEqual([
      expect.objectContaining({ line: 1, column: 17 }),
    ]);
    // Where `tools` is used otherwise, even a check without uses keeps the rule on strings naming internals.
    const aliased = "def run(inputs):\n    call = tools.call\n    return call('github__search', {})\n";
    expect(await sandbox.checkSource(python(aliased))).toMatchObject({ ok: false });
  });
});

describe("tools.call through runInSandbox and a stored tool's code", () => {
  it("serves a Python tool's calls, caps how many one call makes, and runs through runToolCode unchanged", async () => {
    const { runToolCode } = await import("@/lib/tools/library/stored-tool");
    const { config } = await import("@/lib/settings/config");
    const asked: string[] = [];
    const callTool = async (name: string, input: unknown) => {
      asked.push(name);
      return { ok: true as const, output: { name, input } };
    };
    const code = "def run(inputs):\n    return tools.call('echo', {'n': inputs['n']})\n";
    expect(
      await runToolCode({ ...python(code), uses: ["echo"] }, { n: 1 }, undefined, { callTool, nested: true }),
    ).toMatchObject({
      ok: true,
      output: { name: "echo", input: { n: 1 } },
    });
    const flood =
      "def run(inputs):\n    for i in range(inputs['n']):\n        tools.call('echo', {})\n    return 'done'\n";
    const result = await runToolCode(
      { ...python(flood), uses: ["echo"] },
      { n: config.toolCallsPerCall + 1 },
      undefined,
      { callTool },
    );
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        `ToolCallError: More than ${config.toolCallsPerCall} tools.call calls in one call.`,
      ),
    });
    expect(asked).toHaveLength(1 + config.toolCallsPerCall);
  });
});
