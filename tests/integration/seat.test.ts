// SEAT's API at its own base URL, /seat: SEAT's README run as written (curl and jq) with only the token added,
// SEAT's shapes and status codes, FastAPI's errors, Python's printed values, and another identity's tools as missing.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const run = promisify(execFile);
const model = new ModelServer();
let app: AppServer;
let alice: Api;
let aliceToken: string;
let bobToken: string;

/** SEAT's README (github.com/alexmar07/seat), its curl commands as they are written there. */
const README = {
  create: `curl -s -X POST http://localhost:8000/tools \\
  -H "Content-Type: application/json" \\
  -d '{"description": "Convert a temperature from Celsius to Fahrenheit"}' \\
  | jq .`,
  execute: `TOOL_ID="<id from previous response>"

curl -s -X POST "http://localhost:8000/tools/$TOOL_ID/execute" \\
  -H "Content-Type: application/json" \\
  -d '{"input_data": {"celsius": 100}}' \\
  | jq .`,
  list: `# List all active tools
curl -s "http://localhost:8000/tools?status=active" | jq .`,
  search: `# Search by keyword
curl -s "http://localhost:8000/tools/search?q=temperature" | jq .`,
};

/** A README command against this app: its base URL for SEAT's, and the token header; nothing else changes. */
async function readme(command: string, toolId = ""): Promise<unknown> {
  const script = command
    .replaceAll("http://localhost:8000", `${app.url}/seat`)
    .replaceAll("curl -s", `curl -s -H "Authorization: Bearer ${aliceToken}"`)
    .replace("<id from previous response>", toolId);
  const { stdout } = await run("bash", ["-c", `set -o pipefail\n${script}`]);
  return JSON.parse(stdout);
}

/** What SEAT's generator would write for the README's description: a Python function of the input's fields. */
const SEAT_C_TO_F = {
  name: "celsius_to_fahrenheit",
  description: "Convert a temperature from Celsius to Fahrenheit.",
  parameters_schema: { type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] },
  code: "def celsius_to_fahrenheit(celsius):\n    return celsius * 9 / 5 + 32",
  examples: [{ input: { celsius: 100 }, expected_output: 212 }],
};
const writeTool = (args: object) => ({ toolCalls: [{ name: "write_tool", args: args as Record<string, unknown> }] });

const seat = (token: string | null, method: string, path: string, body?: unknown, headers: object = {}) =>
  fetch(`${app.url}/seat${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
async function json(response: Response, status: number) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text ? JSON.parse(text) : null;
}
/** A tool with code, through /api (no model needed), as the token's identity. */
async function created(token: string, tool: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${app.url}/api/tools`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ parameters_schema: { type: "object" }, description: "A tool of the SEAT tests.", ...tool }),
  });
  return (await json(response, 201)).id;
}

const SEAT_FIELDS = [
  "id",
  "name",
  "description",
  "code",
  "input_schema",
  "status",
  "statistics",
  "created_at",
  "updated_at",
];

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  alice = new Api(app.url);
  aliceToken = (await alice.createToken("seat script")).token;
  bobToken = (await new Api(app.url).createToken("bob's script")).token;
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("SEAT's README, run as written against /seat with a token", () => {
  it("creates the tool, executes it (output 212.0), lists and searches it as bare arrays", async () => {
    model.script("Convert a temperature from Celsius to Fahrenheit", [writeTool(SEAT_C_TO_F)]);
    const tool = (await readme(README.create)) as Record<string, unknown>;
    expect(Object.keys(tool).sort()).toEqual([...SEAT_FIELDS].sort());
    expect(tool).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: "celsius_to_fahrenheit",
      code: SEAT_C_TO_F.code,
      input_schema: SEAT_C_TO_F.parameters_schema,
      status: "active",
      statistics: { total_executions: 0, successful_executions: 0, failed_executions: 0, average_execution_time: null },
    });
    expect(tool.created_at).toBe(tool.updated_at);
    // SEAT writes Python: the model was asked for it.
    expect(model.requestsFor("Convert a temperature from Celsius to Fahrenheit")[0].messages[0]).toMatchObject({
      content: expect.stringContaining("small Python functions"),
    });

    const ran = await readme(README.execute, tool.id as string);
    expect(ran).toEqual({ success: true, output: "212.0", error: null, execution_time: expect.any(Number) });
    expect((ran as { execution_time: number }).execution_time).toBeLessThan(5);

    const listed = (await readme(README.list)) as Record<string, unknown>[];
    expect(Array.isArray(listed)).toBe(true);
    expect(listed.find((entry) => entry.id === tool.id)).toMatchObject({
      status: "active",
      statistics: { total_executions: 1, successful_executions: 1, failed_executions: 0 },
    });
    const found = (await readme(README.search)) as Record<string, unknown>[];
    expect(found.map((entry) => entry.id)).toEqual([tool.id]);
  }, 120_000);
});

describe("SEAT's shapes and status codes", () => {
  it("answers health and the index without a token, and every tool route with one only", async () => {
    const health = await seat(null, "GET", "/health");
    expect(await json(health, 200)).toEqual({ status: "ok" });
    // proxy.ts leaves /seat alone: no identity cookie is handed out there.
    expect(health.headers.get("set-cookie")).toBeNull();
    const index = await json(await seat(null, "GET", ""), 200);
    expect(index.functions.map((entry: { name: string }) => entry.name)).toEqual([
      "create",
      "list",
      "detail",
      "execute",
    ]);

    const refused = await seat(null, "GET", "/tools");
    expect(await json(refused, 401)).toEqual({ detail: expect.stringContaining("needs a personal API token") });
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await json(await seat("tsk_nope", "GET", "/tools"), 401)).toEqual({
      detail: expect.stringContaining("not valid or was revoked"),
    });
    // A browser's identity cookie is not a SEAT credential: another site could make a browser send it.
    const cookie = `toolsmith_id=${await alice.identity()}`;
    expect((await seat(null, "POST", "/tools", { description: "x" }, { cookie })).status).toBe(401);
  });

  it("reads, deprecates (through /api), lists by status, deletes with 204, then answers 404", async () => {
    const id = await created(aliceToken, {
      name: "shout",
      description: "Shout a TEXT back.",
      code: "function run({ text }) { return String(text).toUpperCase(); }",
    });
    const tool = await json(await seat(aliceToken, "GET", `/tools/${id}`), 200);
    expect(Object.keys(tool).sort()).toEqual([...SEAT_FIELDS].sort());
    expect(tool).toMatchObject({ id, name: "shout", status: "active" });

    const active = await json(await seat(aliceToken, "GET", "/tools?status=active"), 200);
    expect(active.map((entry: { id: string }) => entry.id)).toContain(id);
    // SEAT's "deprecated" is Toolsmith's: kept and callable, no longer offered to the model.
    const patched = await fetch(`${app.url}/api/tools/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${aliceToken}`, "content-type": "application/json" },
      body: JSON.stringify({ status: "deprecated" }),
    });
    expect(patched.status).toBe(200);
    const deprecated = await json(await seat(aliceToken, "GET", "/tools?status=deprecated"), 200);
    expect(deprecated.map((entry: { id: string; status: string }) => [entry.id, entry.status])).toEqual([
      [id, "deprecated"],
    ]);
    const stillActive = await json(await seat(aliceToken, "GET", "/tools?status=active"), 200);
    expect(stillActive.map((entry: { id: string }) => entry.id)).not.toContain(id);
    const all = await json(await seat(aliceToken, "GET", "/tools"), 200);
    expect(all.map((entry: { id: string }) => entry.id)).toContain(id);

    const removed = await seat(aliceToken, "DELETE", `/tools/${id}`);
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    expect(await json(await seat(aliceToken, "GET", `/tools/${id}`), 404)).toEqual({
      detail: "The tool was not found.",
    });
    expect((await seat(aliceToken, "DELETE", `/tools/${id}`)).status).toBe(404);
    expect((await seat(aliceToken, "POST", `/tools/${id}/execute`, { input_data: {} })).status).toBe(404);
  });

  it("dates a tool of several versions from its first, and shows the latest one's code", async () => {
    const id = await created(aliceToken, { name: "versioned", code: "function run() { return 1; }" });
    expect(await created(aliceToken, { name: "versioned", code: "function run() { return 2; }" })).toBe(id);
    const first = await json(
      await fetch(`${app.url}/api/tools/${id}?version=1`, { headers: { authorization: `Bearer ${aliceToken}` } }),
      200,
    );
    const tool = await json(await seat(aliceToken, "GET", `/tools/${id}`), 200);
    expect(tool).toMatchObject({ code: "function run() { return 2; }", created_at: first.createdAt });
    expect(tool.updated_at > tool.created_at).toBe(true);
  });

  it("searches name and description for a piece of text, ignoring case, and answers every match", async () => {
    const ids = [];
    for (let i = 0; i < 55; i++)
      ids.push(
        await created(aliceToken, {
          name: `many_${i}`,
          description: "One of many RIVERS.",
          code: "function run() { return 1; }",
        }),
      );
    const found = await json(await seat(aliceToken, "GET", "/tools/search?q=iver"), 200);
    // Every match, past Toolsmith's page of 50.
    expect(found.map((entry: { id: string }) => entry.id).sort()).toEqual(ids.sort());
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=MANY_5"), 200)).toHaveLength(6);
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=nowhere"), 200)).toEqual([]);
    // `%` and `_` are text, as SEAT's Python `in` has them, not LIKE's wildcards.
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=%25"), 200)).toEqual([]);
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=m_ny"), 200)).toEqual([]);
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=y_5"), 200)).toHaveLength(6);
    expect((await json(await seat(aliceToken, "GET", "/tools"), 200)).length).toBeGreaterThanOrEqual(55);
  });

  it("prints Python's values as Python does, and JavaScript's as text or JSON", async () => {
    const python = await created(aliceToken, {
      name: "py_values",
      language: "python",
      code: 'def run(inputs):\n    return {"ok": True, "n": 1.5, "none": None, "items": (1, "a")} if inputs.get("dict") else inputs.get("flag", True)',
    });
    const call = async (id: string, input_data: unknown) =>
      json(await seat(aliceToken, "POST", `/tools/${id}/execute`, { input_data }), 200);
    expect(await call(python, {})).toMatchObject({ success: true, output: "True", error: null });
    expect(await call(python, { dict: 1 })).toMatchObject({
      output: "{'ok': True, 'n': 1.5, 'none': None, 'items': (1, 'a')}",
    });
    expect(await call(python, { flag: "plain text" })).toMatchObject({ output: "plain text" });

    const javascript = await created(aliceToken, {
      name: "js_values",
      code: "function run({ kind }) { return kind === 'text' ? 'plain' : kind === 'number' ? 212 : { a: [1, true] }; }",
    });
    expect(await call(javascript, { kind: "text" })).toMatchObject({ output: "plain" });
    expect(await call(javascript, { kind: "number" })).toMatchObject({ output: "212" });
    expect(await call(javascript, {})).toMatchObject({ output: '{"a":[1,true]}' });
  }, 120_000);

  it("answers a failing call and input its schema refuses as success: false, with the error", async () => {
    const id = await created(aliceToken, {
      name: "halve",
      parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      code: "function run({ n }) { if (n < 0) throw new Error('n must not be negative'); return n / 2; }",
    });
    const failed = await json(await seat(aliceToken, "POST", `/tools/${id}/execute`, { input_data: { n: -1 } }), 200);
    expect(failed).toEqual({
      success: false,
      output: null,
      error: expect.stringContaining("n must not be negative"),
      execution_time: expect.any(Number),
    });
    const wrong = await json(await seat(aliceToken, "POST", `/tools/${id}/execute`, { input_data: { n: "x" } }), 200);
    expect(wrong).toMatchObject({ success: false, output: null, error: expect.stringContaining("input_schema") });
    const tool = await json(await seat(aliceToken, "GET", `/tools/${id}`), 200);
    // Input the schema refuses never reaches the tool: only the call that ran counts.
    expect(tool.statistics).toMatchObject({ total_executions: 1, successful_executions: 0, failed_executions: 1 });
  });
});

describe("another identity's tools", () => {
  it("are missing for it: 404 to read, run or delete them, and absent from its lists", async () => {
    const id = await created(aliceToken, { name: "alice_only", code: "function run() { return 'mine'; }" });
    for (const [method, path, body] of [
      ["GET", `/tools/${id}`],
      ["DELETE", `/tools/${id}`],
      ["POST", `/tools/${id}/execute`, { input_data: {} }],
    ] as const)
      expect(await json(await seat(bobToken, method, path, body), 404)).toEqual({ detail: "The tool was not found." });
    expect(await json(await seat(bobToken, "GET", "/tools"), 200)).toEqual([]);
    expect(await json(await seat(bobToken, "GET", "/tools/search?q=alice"), 200)).toEqual([]);
    expect(await json(await seat(aliceToken, "GET", `/tools/${id}`), 200)).toMatchObject({ name: "alice_only" });
  });
});

describe("bad input, as FastAPI answers it", () => {
  it("is 422 with each problem's type, location and message", async () => {
    expect(await json(await seat(aliceToken, "POST", "/tools", {}), 422)).toEqual({
      detail: [{ type: "missing", loc: ["body", "description"], msg: "Field required" }],
    });
    expect(await json(await seat(aliceToken, "POST", "/tools", { description: 7 }), 422)).toEqual({
      detail: [{ type: "string_type", loc: ["body", "description"], msg: "Input should be a valid string", input: 7 }],
    });
    expect(
      (await json(await seat(aliceToken, "POST", "/tools", { description: "x", name: "no spaces" }), 422)).detail,
    ).toEqual([expect.objectContaining({ type: "string_pattern_mismatch", loc: ["body", "name"] })]);
    expect((await json(await seat(aliceToken, "POST", "/tools", '{"description": '), 422)).detail).toEqual([
      expect.objectContaining({ type: "json_invalid", loc: ["body"] }),
    ]);
    const id = await created(aliceToken, { name: "echo_any", code: "function run(input) { return input; }" });
    expect(await json(await seat(aliceToken, "POST", `/tools/${id}/execute`, { input_data: "x" }), 422)).toEqual({
      detail: [
        { type: "dict_type", loc: ["body", "input_data"], msg: "Input should be a valid dictionary", input: "x" },
      ],
    });
    expect(await json(await seat(aliceToken, "GET", "/tools?status=retired"), 422)).toEqual({
      detail: [
        { type: "enum", loc: ["query", "status"], msg: "Input should be 'active' or 'deprecated'", input: "retired" },
      ],
    });
    expect(await json(await seat(aliceToken, "GET", "/tools/search"), 422)).toEqual({
      detail: [{ type: "missing", loc: ["query", "q"], msg: "Field required" }],
    });
  });

  it("is 422 with the reason when no written tool passes its checks, and nothing is stored", async () => {
    const description = "Convert Celsius to Fahrenheit, but always wrong.";
    const wrong = { ...SEAT_C_TO_F, name: "always_wrong", code: "def always_wrong(celsius):\n    return celsius" };
    model.script(description, () => writeTool(wrong));
    const refused = await json(await seat(aliceToken, "POST", "/tools", { description }), 422);
    expect(refused).toEqual({ detail: expect.stringContaining("No tool passed its checks in 3 attempts") });
    expect(await json(await seat(aliceToken, "GET", "/tools/search?q=always_wrong"), 200)).toEqual([]);
  }, 120_000);
});
