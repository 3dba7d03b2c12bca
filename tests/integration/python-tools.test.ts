import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RegisteredToolView, Violation } from "@/lib/contract/events";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { otlpJsonSpans } from "../support/otlp-receiver";

/*
 * Python tools beside JavaScript ones, through the real server: made through the API (`language`, or the
 * tool-registration PR's `python_code`) and by register_tool in a chat in both seed forms, then listed, called
 * (API, chat, MCP), tested against examples, exported and traced, with their language everywhere.
 */

const model = new ModelServer();
let app: AppServer;
let alice: Api;

const NUMBERS = { type: "object", properties: { numbers: { type: "array", items: { type: "number" } } } };
const MEAN = {
  name: "mean_of",
  description: "The arithmetic mean of a list of numbers.",
  parameters_schema: { ...NUMBERS, required: ["numbers"] },
  language: "python",
  code: 'import statistics\n\ndef run(inputs):\n    return {"mean": statistics.mean(inputs["numbers"])}\n',
  examples: [{ input: { numbers: [1, 2, 3, 4] }, expected_output: { mean: 2.5 } }],
};
/** SEAT's style: the module's only function is the entry point, whatever its name. */
const MEDIAN_PR = {
  name: "median_of",
  description: "The median of a list of numbers.",
  parameters_schema: { ...NUMBERS, required: ["numbers"] },
  python_code: 'import statistics\n\ndef median(inputs):\n    return statistics.median(inputs["numbers"])\n',
};
const SLUGIFY_JS = {
  name: "slugify",
  description: "Turn a title into a URL slug.",
  parameters_schema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
  code: "function run({ title }) { return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''); }",
};
const SLUGIFY_PY = {
  language: "python",
  code: 'import re\n\ndef run(inputs):\n    return re.sub(r"[^a-z0-9]+", "-", inputs["title"].lower().strip()).strip("-")\n',
};

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  alice = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const create = (body: object, status = 201) =>
  sendJson(alice, "/api/tools", "POST", body).then((r) => expectJson(r, status));
const execute = (id: string, input: object, version?: number) =>
  sendJson(alice, `/api/tools/${id}/execute${version ? `?version=${version}` : ""}`, "POST", { input }).then((r) =>
    expectJson(r, 200),
  );

describe("Python tools through the REST API", () => {
  it("stores a tool with language python: GET, the list and its filter show the language, execute runs it", async () => {
    const created = await create(MEAN);
    expect(created).toMatchObject({ name: "mean_of", language: "python", code: MEAN.code, tested: true });
    expect(await expectJson(await alice.fetch(`/api/tools/${created.id}`), 200)).toMatchObject({ language: "python" });

    const listed = (await expectJson(await alice.fetch("/api/tools"), 200)).tools;
    expect(listed.find((tool: { id: string }) => tool.id === created.id)).toMatchObject({ language: "python" });
    const pythonOnly = (await expectJson(await alice.fetch("/api/tools?language=python"), 200)).tools;
    expect(pythonOnly.every((tool: { language: string }) => tool.language === "python")).toBe(true);
    expect(pythonOnly.map((tool: { id: string }) => tool.id)).toContain(created.id);

    expect(await execute(created.id, { numbers: [2, 4, 9] })).toMatchObject({ ok: true, output: { mean: 5 } });
    const failed = await expectJson(
      await sendJson(alice, `/api/tools/${created.id}/execute`, "POST", { input: {} }),
      400,
    );
    expect(failed.error.message).toMatch(/numbers/);
  });

  it("takes the tool-registration PR's python_code, with a SEAT-style entry point of another name", async () => {
    const created = await create(MEDIAN_PR);
    expect(created).toMatchObject({ name: "median_of", language: "python", code: MEDIAN_PR.python_code });
    expect((await execute(created.id, { numbers: [5, 1, 3] })).output).toBe(3);
    // The same source under both names is one source.
    const again = await create({ ...MEDIAN_PR, code: MEDIAN_PR.python_code, language: "python" });
    expect(again).toMatchObject({ id: created.id, version: 2, language: "python" });
  });

  it("lets a new version change language, each version keeping its own", async () => {
    const v1 = await create(SLUGIFY_JS);
    expect(v1).toMatchObject({ version: 1, language: "javascript" });
    const v2 = await create({ ...SLUGIFY_JS, ...SLUGIFY_PY });
    expect(v2).toMatchObject({ id: v1.id, version: 2, language: "python" });
    expect((await expectJson(await alice.fetch(`/api/tools/${v1.id}?version=1`), 200)).language).toBe("javascript");
    const versions = (await expectJson(await alice.fetch(`/api/tools/${v1.id}/versions`), 200)).versions;
    expect(versions.map((version: { language: string }) => version.language)).toEqual(["javascript", "python"]);
    expect((await execute(v1.id, { title: " Hello, Python! " })).output).toBe("hello-python");
    expect((await execute(v1.id, { title: " Hello, JS! " }, 1)).output).toBe("hello-js");
  });

  it("refuses bad input: another language, two different sources, python_code said to be JavaScript", async () => {
    const unknown = await create({ ...SLUGIFY_JS, name: "ruby_tool", language: "ruby" }, 400);
    expect(unknown.error.message).toMatch(/language/);
    expect(unknown.error.message).toContain('"javascript"');
    expect(unknown.error.message).toContain('"python"');

    const both = await create({ ...MEDIAN_PR, name: "two_sources", code: "def run(inputs):\n    return 1\n" }, 400);
    expect(both.error.message).toMatch(/code or python_code, not both/);

    const mislabelled = await create({ ...MEDIAN_PR, name: "mislabelled", language: "javascript" }, 400);
    expect(mislabelled.error.message).toMatch(/python_code is Python/);

    const nothing = await create({ ...MEDIAN_PR, python_code: undefined, name: "no_source" }, 400);
    expect(nothing.error.message).toMatch(/code \(with language\) or python_code/);
    await expectJson(await alice.fetch("/api/tools?language=ruby"), 400);
  });

  it("refuses Python that does not parse, with its line, and a module without a function, saying what is needed", async () => {
    const broken = await create(
      { ...MEAN, name: "broken", code: "def run(inputs):\n    total = 1\n    return total +\n", examples: [] },
      422,
    );
    expect(broken.error.code).toBe("tool_policy");
    expect(broken.violations[0]).toMatchObject({ line: 3, column: expect.any(Number) });

    const noFunction = await create({ ...MEAN, name: "no_function", code: "answer = 42\n", examples: [] }, 422);
    expect(noFunction.error.message).toContain("def run(inputs)");

    expect((await expectJson(await alice.fetch("/api/tools?q=broken"), 200)).tools).toEqual([]);
  });

  it("runs a Python tool's examples before it is stored: a failing one refuses it, with what the tool returned", async () => {
    const refused = await create(
      {
        ...MEAN,
        name: "wrong_mean",
        examples: [
          { input: { numbers: [1, 3] }, expected_output: { mean: 2 } },
          { input: { numbers: [1, 2] }, expected_output: { mean: 2 } },
        ],
      },
      422,
    );
    expect(refused.error.code).toBe("tool_examples");
    expect(refused.failures).toEqual([
      expect.objectContaining({ passed: true }),
      expect.objectContaining({ passed: false, actual_output: { mean: 1.5 } }),
    ]);
    expect((await expectJson(await alice.fetch("/api/tools?q=wrong_mean"), 200)).tools).toEqual([]);
  });

  it("keeps a past call of a Python tool as an example, and a failing one that the next version must pass", async () => {
    const tool = await create({ ...MEAN, name: "mean_kept", examples: [] });
    await execute(tool.id, { numbers: [1, 2, 6] });
    const [call] = (await expectJson(await alice.fetch(`/api/tools/${tool.id}/executions`), 200)).executions;
    const kept = await expectJson(
      await sendJson(alice, `/api/tools/${tool.id}/examples`, "POST", { executionId: call.id }),
      201,
    );
    expect(kept).toMatchObject({ language: "python", tested: true, examples: [{ expected_output: { mean: 3 } }] });
    const tested = await expectJson(await sendJson(alice, `/api/tools/${tool.id}/test`, "POST"), 200);
    expect(tested).toMatchObject({ passed: true, outcomes: [{ passed: true }] });

    // An empty list should give 0 rather than fail (as a reviewer's annotation would say): kept as failing.
    const failing = { input: { numbers: [] }, expected_output: { mean: 0 }, failing: true };
    const withFailing = await expectJson(await sendJson(alice, `/api/tools/${tool.id}/examples`, "POST", failing), 201);
    expect(withFailing.failing_examples).toEqual([{ input: { numbers: [] }, expected_output: { mean: 0 } }]);
    const unfixed = await create({ ...MEAN, name: "mean_kept", examples: [] }, 422);
    expect(unfixed.error.message).toMatch(/kept by a person/);
    const fixed = await create({
      ...MEAN,
      name: "mean_kept",
      code: 'import statistics\n\ndef run(inputs):\n    numbers = inputs["numbers"]\n    return {"mean": statistics.mean(numbers) if numbers else 0}\n',
      examples: [],
    });
    // The failing example became one of its examples: it passes it now.
    expect(fixed).toMatchObject({
      version: 2,
      language: "python",
      examples: [{ input: { numbers: [] }, expected_output: { mean: 0 } }],
    });
  });
});

describe("Python tools in a chat", () => {
  it("registers them with register_tool in both seed forms, says their language, and calls them", async () => {
    const prompt = "What are the mean and the median of 1, 2 and 9?";
    const registerPr = {
      name: "chat_median",
      description: "The median of a list of numbers.",
      parameters_schema: MEDIAN_PR.parameters_schema,
      python_code: MEDIAN_PR.python_code,
      examples: [{ input: { numbers: [3, 1, 2] }, expected_output: 2 }],
    };
    const registerCode = { ...MEAN, name: "chat_mean" };
    model.script(prompt, [
      {
        toolCalls: [
          { name: "register_tool", args: registerPr },
          { name: "register_tool", args: registerCode },
        ],
      },
      {
        toolCalls: [
          { name: "chat_median", args: { numbers: [1, 2, 9] } },
          { name: "chat_mean", args: { numbers: [1, 2, 9] } },
        ],
      },
      { text: "The mean is 4 and the median 2." },
    ]);
    const conversation = await alice.createConversation();
    const events = await alice.run(conversation.id, prompt);

    const registered = ofType(events, "tool_registered").map((event) => event.tool as RegisteredToolView);
    expect(registered.map((tool) => [tool.name, tool.language])).toEqual([
      ["chat_median", "python"],
      ["chat_mean", "python"],
    ]);
    expect(registered[0].code).toBe(MEDIAN_PR.python_code);
    // The two calls of the second step run side by side: their results come in either order.
    const results = ofType(events, "tool_result").filter((result) => result.step === 2);
    expect(results.map((result) => [result.name, result.ok, result.output])).toEqual(
      expect.arrayContaining([
        ["chat_median", true, 2],
        ["chat_mean", true, { mean: 4 }],
      ]),
    );
    expect(results).toHaveLength(2);
    const stored = await alice.conversation(conversation.id);
    expect(stored.tools.map((tool: { name: string; language: string }) => [tool.name, tool.language])).toEqual([
      ["chat_mean", "python"],
      ["chat_median", "python"],
    ]);

    // The export carries the language: the tools in JSON, the code's fence in Markdown.
    const exported = await expectJson(
      await alice.fetch(`/api/conversations/${conversation.id}/export?format=json`),
      200,
    );
    expect(exported.tools.map((tool: { language: string }) => tool.language)).toEqual(["python", "python"]);
    const markdown = await (await alice.fetch(`/api/conversations/${conversation.id}/export?format=md`)).text();
    expect(markdown).toContain("```python\nimport statistics");

    // The run's trace: each call of a stored tool says its language, a registration (a built-in) none.
    const runId = events[0].data.runId as string;
    const otlp = await expectJson(await alice.fetch(`/api/conversations/${conversation.id}/runs/${runId}/otlp`), 200);
    const spans = otlpJsonSpans(otlp);
    const language = (name: string) =>
      spans.find((span) => span.name === `execute_tool ${name}`)?.attributes["toolsmith.tool.language"];
    expect(language("chat_mean")).toBe("python");
    expect(language("chat_median")).toBe("python");
    expect(language("register_tool")).toBeUndefined();
  });

  it("refuses a registration whose two sources differ, and one that does not parse, with the line", async () => {
    const prompt = "Write a broken Python tool.";
    const broken = { ...MEAN, name: "broken_mean", code: "def run(inputs):\n    return (\n", examples: [] };
    model.script(prompt, [
      {
        toolCalls: [
          { name: "register_tool", args: { ...MEDIAN_PR, code: "def run(inputs):\n    return 0\n" } },
          { name: "register_tool", args: broken },
        ],
      },
      { text: "Both were refused." },
    ]);
    const events = await alice.run((await alice.createConversation()).id, prompt);
    const [twoSources, unparsed] = ofType(events, "tool_result");
    expect(twoSources).toMatchObject({ ok: false, error: expect.stringMatching(/not both/) });
    expect(unparsed).toMatchObject({ ok: false, error: expect.stringMatching(/line 2/) });
    const [rejected] = ofType(events, "tool_rejected");
    expect(rejected).toMatchObject({ name: "broken_mean", language: "python", code: broken.code });
    expect((rejected.violations as Violation[])[0].line).toBe(2);
  });
});

describe("Python tools over MCP", () => {
  it("lists a Python library tool, not open-world, and calls it through the one call path", async () => {
    const token = (await alice.createToken("mcp")).token;
    const tool = await create({ ...MEAN, name: "mcp_mean" });
    const client = new Client({ name: "python-tools-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const listed = [];
      for (let cursor: string | undefined, first = true; first || cursor; first = false) {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        listed.push(...page.tools);
        cursor = page.nextCursor;
      }
      expect(listed.find((found) => found.name === "mcp_mean")).toMatchObject({
        inputSchema: MEAN.parameters_schema,
        annotations: { readOnlyHint: true, openWorldHint: false },
      });
      const result = await client.callTool({ name: "mcp_mean", arguments: { numbers: [1, 2] } });
      expect(result).toMatchObject({ structuredContent: { mean: 1.5 } });
      expect(result.isError).toBeFalsy();
      const failed = await client.callTool({ name: "mcp_mean", arguments: { numbers: [] } });
      expect(failed).toMatchObject({ isError: true });
    } finally {
      await client.close();
    }
    const [latest] = (await expectJson(await alice.fetch(`/api/tools/${tool.id}/executions`), 200)).executions;
    expect(latest).toMatchObject({ source: "mcp", status: "failed" });
  });
});
