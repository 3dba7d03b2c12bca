import { describe, expect, it } from "vitest";
import { runToolCode } from "@/lib/tools/library/stored-tool";
import { config } from "@/lib/settings/config";
import { capResult } from "@/lib/tools/output";

const LIMIT = 100;
const marker = (total: number | string) =>
  `\n…[truncated: the output was ${total} characters; only the first ${LIMIT} are shown]`;

describe("capResult: a tool's result as the model, the trace and the API see it", () => {
  it("leaves output within the limit as it is", () => {
    expect(capResult({ ok: true, output: "short" }, LIMIT)).toEqual({ ok: true, output: "short" });
    const json = { rows: [1, 2, 3], name: "n" };
    expect(capResult({ ok: true, output: json }, LIMIT)).toEqual({ ok: true, output: json });
    // Exactly the limit is not cut.
    expect(capResult({ ok: true, output: "a".repeat(LIMIT) }, LIMIT)).toEqual({ ok: true, output: "a".repeat(LIMIT) });
  });

  it("keeps Python's printed value within the limit, and drops it past the limit, where the output is cut", () => {
    expect(capResult({ ok: true, output: 212, text: "212.0" }, LIMIT)).toEqual({
      ok: true,
      output: 212,
      text: "212.0",
    });
    const long = "x".repeat(LIMIT + 1);
    expect(capResult({ ok: true, output: 1, text: long }, LIMIT)).toEqual({ ok: true, output: 1 });
    expect(capResult({ ok: true, output: long, text: long }, LIMIT)).toEqual({
      ok: true,
      output: long.slice(0, LIMIT) + marker(long.length),
      truncated: true,
    });
  });

  it("gives a tool that returned nothing a null output", () => {
    expect(capResult({ ok: true, output: undefined }, LIMIT)).toEqual({ ok: true, output: null });
  });

  it("keeps what else the result says (a registered tool)", () => {
    const registered = {
      id: "t",
      versionId: "v",
      name: "x",
      description: "d",
      parametersSchema: {},
      code: "c",
      version: 1,
    };
    expect(capResult({ ok: true, output: "x".repeat(500), registered }, LIMIT)).toMatchObject({ registered });
  });

  it("cuts a long string at the limit, says how long it was, and marks it truncated", () => {
    const output = "0123456789".repeat(25);
    expect(capResult({ ok: true, output }, LIMIT)).toEqual({
      ok: true,
      output: output.slice(0, LIMIT) + marker(250),
      truncated: true,
    });
  });

  it("cuts long JSON as its text, which is then what is shown", () => {
    const output = { items: Array.from({ length: 50 }, (_, index) => ({ index })) };
    const text = JSON.stringify(output);
    const capped = capResult({ ok: true, output }, LIMIT);
    expect(capped).toEqual({ ok: true, output: text.slice(0, LIMIT) + marker(text.length), truncated: true });
  });

  it("marks output the sandbox already cut, though it fits: its whole length is unknown", () => {
    const output = '{"partial": "the sandbox stopped he';
    expect(capResult({ ok: true, output, truncated: true }, LIMIT)).toEqual({
      ok: true,
      output: output + marker(`more than ${LIMIT}`),
      truncated: true,
    });
  });

  it("leaves a short error as it is, and cuts a long one with the marker", () => {
    expect(capResult({ ok: false, error: "boom", cancelled: true }, LIMIT)).toEqual({
      ok: false,
      error: "boom",
      cancelled: true,
    });
    expect(capResult({ ok: false, error: "E".repeat(LIMIT) }, LIMIT)).toEqual({ ok: false, error: "E".repeat(LIMIT) });
    const error = "E".repeat(LIMIT + 1);
    expect(capResult({ ok: false, error, cancelled: true }, LIMIT)).toEqual({
      ok: false,
      error: "E".repeat(LIMIT) + marker(LIMIT + 1),
      cancelled: true,
    });
  });
});

describe("what a stored tool's code printed, on success, in both languages", () => {
  it("comes back on the result beside its output, capped by the sandbox", async () => {
    const javascript = await runToolCode(
      { language: "javascript", code: 'function run({ n }) { console.log("got", n); return n * 2; }', uses: [] },
      { n: 21 },
    );
    expect(javascript).toMatchObject({ ok: true, output: 42, logs: ["got 21"] });
    const python = await runToolCode(
      {
        language: "python",
        code: 'def run(inputs):\n    print("got", inputs["n"])\n    return inputs["n"] * 2\n',
        uses: [],
      },
      { n: 21 },
    );
    expect(python).toMatchObject({ ok: true, output: 42, logs: ["got 21"] });
    const quiet = await runToolCode({ language: "javascript", code: "function run() { return 1; }", uses: [] }, {});
    expect(quiet).not.toHaveProperty("logs");
    const flood = await runToolCode(
      {
        language: "python",
        code: "def run(inputs):\n    for i in range(100000):\n        print(i)\n    return 1\n",
        uses: [],
      },
      {},
    );
    expect(flood).toMatchObject({ ok: true, output: 1 });
    const lines = (flood as { logs: string[] }).logs;
    expect(lines.at(-1)).toBe("[console output truncated]");
    expect(lines.join("\n").length).toBeLessThanOrEqual(config.sandbox.consoleChars + 100);
  });
});
