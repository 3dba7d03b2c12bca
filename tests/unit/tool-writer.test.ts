import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { GenerationEvent } from "@/lib/contract/generation";
import { IdleTimeout } from "@/lib/agent/model-step";
import { generateTool, TOOL_WRITER_PROMPT } from "@/lib/agent/tool-writer";
import type { NewToolVersion } from "@/lib/db/queries/tools";
import type { ToolLanguage } from "@/lib/sandbox";
import type { Registration } from "@/lib/tools/library/versions";

// The registration is the library's (tested with it); here it only records what the writer hands it.
const registered: NewToolVersion[] = [];
let registrations: Registration[] = [];
vi.mock("@/lib/tools/library/versions", () => ({
  registerToolVersion: async (tool: NewToolVersion) => (registered.push(tool), registrations.shift()),
}));
vi.mock("@/lib/tools/library/wire", () => ({ toolJson: (row: unknown) => row }));

beforeEach(() => {
  registered.length = 0;
});

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const MEAN = {
  name: "mean",
  description: "The arithmetic mean of a list of numbers.",
  parameters_schema: { type: "object", properties: { values: { type: "array" } }, required: ["values"] },
  code: 'import statistics\n\ndef run(inputs):\n    return statistics.mean(inputs["values"])',
  examples: [{ input: { values: [1, 2, 4] }, expected_output: 2.3333333333333335 }],
};

/** A model that answers each attempt by calling write_tool with `tool`, as a `compatible` server is made to. */
const writing = (...tools: object[]) =>
  new MockLanguageModelV4({
    doStream: tools.map((tool, index) => ({
      stream: convertArrayToReadableStream<StreamPart>([
        { type: "tool-call", toolCallId: `call-${index}`, toolName: "write_tool", input: JSON.stringify(tool) },
        {
          type: "finish",
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
        },
      ]),
    })),
  });

async function generate(model: MockLanguageModelV4, language: ToolLanguage, attempts = 2) {
  const events: GenerationEvent[] = [];
  for await (const event of generateTool({
    ownerId: "owner-1",
    description: "The mean of some numbers.",
    language,
    model: { model, idle: new IdleTimeout(60_000), maxRetries: 0 },
    api: "compatible",
    attempts,
    signal: new AbortController().signal,
  }))
    events.push(event);
  return events;
}

const systemPrompts = (model: MockLanguageModelV4) =>
  model.doStreamCalls.map((call) => call.prompt.find((message) => message.role === "system")?.content);

describe("the tool writer's prompt, by language", () => {
  it("asks for def run(inputs) in Python, with the sandbox's imports, the guarded web, and raised errors", () => {
    const python = TOOL_WRITER_PROMPT.python;
    expect(python).toContain("small Python functions");
    expect(python).toContain("`def run(inputs):`");
    expect(python).toMatch(
      /import only json, re, math, datetime, collections, itertools, urllib, requests, pandas, numpy, bs4/,
    );
    expect(python).toContain("requests and urllib reach public web hosts only");
    expect(python).toContain("raise a ValueError with a clear message");
    expect(python).not.toMatch(/JavaScript|function run/);
  });

  it("asks for function run(inputs) in JavaScript, as before Python", () => {
    const javascript = TOOL_WRITER_PROMPT.javascript;
    expect(javascript).toContain("small JavaScript functions");
    expect(javascript).toContain("`function run(inputs)`");
    expect(javascript).toContain("throw an Error with a clear message");
    expect(javascript).not.toMatch(/Python|def run/);
  });

  it("gives both the same answer: the fields, the examples and the repairs", () => {
    const withoutCode = (prompt: string) => prompt.split("\n").filter((line) => !/^- code:|^You write/.test(line));
    expect(withoutCode(TOOL_WRITER_PROMPT.python)).toEqual(withoutCode(TOOL_WRITER_PROMPT.javascript));
  });
});

describe("writing a tool in a language", () => {
  it("prompts for Python, registers the answer as Python, and asks for Python again in the repair", async () => {
    registrations = [
      { ok: false, problem: "compile", message: "Tool \"mean\" failed to load: NameError: name 'statistic'" },
      { ok: true, row: { name: "mean" } as never, dependents: [] },
    ];
    const model = writing({ ...MEAN, code: MEAN.code.replace("statistics.mean", "statistic.mean") }, MEAN);
    const events = await generate(model, "python");

    expect(events.filter((event) => event.type === "attempt_failed")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "tool_created", attempt: 2 });
    expect(events[4]).toMatchObject({ tool: { name: "mean", code: MEAN.code, language: "python" } });
    expect(systemPrompts(model)).toEqual([TOOL_WRITER_PROMPT.python, TOOL_WRITER_PROMPT.python]);
    expect(registered.map((tool) => [tool.language, tool.code])).toEqual([
      ["python", expect.stringContaining("statistic.mean")],
      ["python", MEAN.code],
    ]);
    const repair = JSON.stringify(model.doStreamCalls[1].prompt.at(-1));
    expect(repair).toContain("NameError");
    expect(repair).toContain("its code in Python");
  });

  it("writes JavaScript with JavaScript's prompt, and says so when it gives up", async () => {
    registrations = [1, 2].map(() => ({ ok: false, problem: "compile", message: "SyntaxError: unexpected token" }));
    const model = writing(MEAN, MEAN);
    const events = await generate(model, "javascript");

    expect(systemPrompts(model)).toEqual([TOOL_WRITER_PROMPT.javascript, TOOL_WRITER_PROMPT.javascript]);
    expect(registered.map((tool) => tool.language)).toEqual(["javascript", "javascript"]);
    expect(JSON.stringify(model.doStreamCalls[1].prompt.at(-1))).toContain("its code in JavaScript");
    expect(events.at(-1)).toMatchObject({ type: "generation_failed", status: 422 });
  });
});
