import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { recordAudit } from "@/lib/db/queries/audit";
import { recordExecution } from "@/lib/db/queries/executions";
import {
  findLibraryTool,
  listConversationOwnTools,
  recentlyUsedLibraryTools,
  type ToolRow,
} from "@/lib/db/queries/tools";
import { searchTools } from "@/lib/retrieval/tool-search";
import { spanIdOf, toolCallTraceparent, toolSpanKey, traceIdOf } from "@/lib/platform/trace-ids";
import { config } from "@/lib/settings/config";
import type { AgentProfile } from "@/lib/settings/profiles";
import { calculate } from "@/lib/tools/native/calculate";
import { callTool, MAX_CALL_DEPTH, type Caller } from "@/lib/tools/call";
import { refused } from "@/lib/tools/define-tool";
import { loadToolset, Toolset } from "@/lib/tools/toolset";
import type { AgentTool, ToolContext, ToolResult } from "@/lib/tools/types";

// The tool-call path needs no database: its two records are counted here instead of written.
vi.mock("@/lib/db/driver/client", () => {
  throw new Error("the tool-call path loaded the database client");
});
vi.mock("@/lib/db/queries/audit", () => ({ recordAudit: vi.fn(async () => {}) }));
vi.mock("@/lib/db/queries/executions", () => ({ recordExecution: vi.fn(async () => {}) }));
// SQLite's rate limits are counted in memory; PostgreSQL's shared count is the scale-out tests'.
vi.mock("@/lib/db/queries/rate-buckets", () => ({ takeSharedToken: vi.fn() }));
// What loadToolset builds a run's tools from: the stored tools, as rows (the conversation's own, the library's that
// fit the message), and the built-ins (stand-ins here: the real ones keep their data in the database).
vi.mock("@/lib/db/queries/tools", () => ({
  listConversationOwnTools: vi.fn(),
  findLibraryTool: vi.fn(),
  recentlyUsedLibraryTools: vi.fn(async () => []),
}));
vi.mock("@/lib/retrieval/tool-search", () => ({ searchTools: vi.fn() }));
// No MCP servers here: those runs are the integration tests' (mcp-in-runs.test.ts).
vi.mock("@/lib/mcp-servers/servers", () => ({ serversForRun: vi.fn(async () => []) }));
vi.mock("@/lib/tools/library/stored-tool", () => ({
  storedTool: (row: { id: string; name: string }) => ({
    name: row.name,
    versionId: row.id,
    description: "stored",
    parse: (input: unknown) => ({ ok: true, input }),
    execute: async () => ({ ok: true, output: "stored" }),
  }),
}));
vi.mock("@/lib/tools/builtin", async () => {
  const { calculate } = await import("@/lib/tools/native/calculate");
  return {
    builtinTools: [
      calculate,
      { ...calculate, name: "run_code", description: "the built-in run_code" },
      { ...calculate, name: "search_tools", description: "the built-in search_tools" },
    ],
  };
});

const audits = vi.mocked(recordAudit);
const executions = vi.mocked(recordExecution);

beforeEach(() => vi.clearAllMocks());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** The built-in calculate, its execute watched. */
const watchedCalculate = () =>
  ({ ...calculate, execute: vi.fn(calculate.execute) }) as AgentTool & {
    execute: ReturnType<typeof vi.fn>;
  };

/** A tool as a stored, registered one: not a built-in name, with a stored id. */
function storedTool(
  name: string,
  execute: (input: { text: string }, context: ToolContext) => Promise<ToolResult>,
  extra: Partial<AgentTool> = {},
): AgentTool {
  return {
    name,
    description: `the ${name} tool`,
    parametersSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    versionId: `stored-${name}`,
    parse: (input) =>
      typeof (input as { text?: unknown })?.text === "string"
        ? { ok: true, input }
        : { ok: false, problems: ["text: expected a string"] },
    execute: execute as AgentTool["execute"],
    ...extra,
  };
}

let profiles = 0;
/** A profile of its own per test: rate limits are kept per profile and tool. */
const profile = (overrides: Partial<AgentProfile> = {}): AgentProfile => ({
  name: `profile-${++profiles}`,
  tools: ["calculate"],
  tool_config: {},
  network: {},
  approval: [],
  mcp_servers: [],
  personal_mcp_servers: true,
  planner: false,
  approve_mcp_tools: "unless_read_only",
  ...overrides,
});

const runCaller = { ownerId: "owner-1", conversationId: "conversation-1", runId: "run-1" };
const chat: Caller = { ...runCaller, source: "chat", callId: "call-1" };
const api: Caller = { ownerId: "owner-1", source: "api" };

describe("Toolset: a run's tools", () => {
  it("offers the model each tool with its description and schema", () => {
    const echo = storedTool("echo", async ({ text }) => ({ ok: true, output: text }));
    const offered = new Toolset([calculate, echo], profile()).forModel();
    expect(Object.keys(offered)).toEqual(["calculate", "echo"]);
    expect(offered.echo.description).toBe("the echo tool");
    expect((offered.echo.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(echo.parametersSchema);
    expect((offered.calculate.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(calculate.parametersSchema);
  });

  it("answers a call of an unknown tool with the tools there are and how to make one", async () => {
    const toolset = new Toolset([calculate, storedTool("echo", async () => ({ ok: true, output: "" }))], profile());
    const outcome = await toolset.call("translate", {
      input: { text: "hola" },
      caller: { ...runCaller, callId: "c9" },
    });
    const hint =
      'There is no tool named "translate". Available tools: calculate, echo. Look for one in the library with ' +
      "search_tools; if none fits, create one with register_tool(name, description, parameters_schema, code), then call it.";
    expect(outcome).toMatchObject({ result: { ok: false, error: hint }, decision: "refused" });
    // The model read the refusal as the call's result: the run's call is recorded, as a failed execution.
    expect(audits).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ tool: "translate", decision: "refused", reason: hint, outcome: undefined }),
    );
    expect(executions).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({
        source: "chat",
        callId: "c9",
        toolName: "translate",
        versionId: undefined,
        error: hint,
      }),
    );
  });

  it("runs a call for the run's owner, in its conversation, with the profile's settings and itself as the registry", async () => {
    const settings = { allowed_domains: ["example.com"] };
    const echo = storedTool("echo", async ({ text }) => ({ ok: true, output: text }));
    const execute = vi.fn(async () => ({ ok: true as const, output: 4 }));
    const toolset = new Toolset([{ ...calculate, execute }, echo], profile({ tool_config: { calculate: settings } }));
    const signal = new AbortController().signal;
    const outcome = await toolset.call("calculate", {
      input: { expression: "2 + 2" },
      caller: { ...runCaller, callId: "c1" },
      signal,
    });
    expect(outcome).toMatchObject({ result: { ok: true, output: 4 }, decision: "allowed" });
    expect(execute).toHaveBeenCalledExactlyOnceWith(
      { expression: "2 + 2" },
      {
        ...runCaller,
        signal,
        settings,
        network: {},
        tools: toolset,
        callTool: expect.any(Function),
        codeCalls: expect.objectContaining({ registry: toolset, network: {} }),
        nested: false,
      },
    );
    // A registered tool gets no built-in's settings.
    await toolset.call("echo", { input: { text: "hi" }, caller: { ...runCaller, callId: "c2" } });
    expect(executions).toHaveBeenLastCalledWith(expect.objectContaining({ source: "chat", versionId: "stored-echo" }));
  });

  it("lets a call add a tool, which the model is offered and can call next", async () => {
    const register = storedTool("register", async ({ text }, context) => {
      context.tools!.add(storedTool(text, async (input) => ({ ok: true, output: input.text.toUpperCase() })));
      return { ok: true, output: `registered ${text}` };
    });
    const toolset = new Toolset([register], profile());
    await toolset.call("register", { input: { text: "shout" }, caller: runCaller });
    expect(toolset.names()).toEqual(["register", "shout"]);
    expect(Object.keys(toolset.forModel())).toEqual(["register", "shout"]);
    const outcome = await toolset.call("shout", { input: { text: "hi" }, caller: runCaller });
    expect(outcome.result).toEqual({ ok: true, output: "HI" });
  });
});

describe("loadToolset: the tools a run is offered", () => {
  const row = (name: string) => ({ id: `stored-${name}`, name }) as ToolRow;

  it("offers the built-ins its profile allows, search_tools, its own tools and the library's best matches", async () => {
    vi.mocked(listConversationOwnTools).mockResolvedValue([row("calculate"), row("double")]);
    vi.mocked(searchTools).mockResolvedValue([
      { tool: row("run_code"), score: 1 },
      { tool: { ...row("double"), id: "library-double" }, score: 0.9 },
      { tool: row("triple"), score: 0.5 },
    ]);
    vi.mocked(recentlyUsedLibraryTools).mockResolvedValue([row("halve")]);
    const toolset = await loadToolset("conversation-1", "owner-1", profile({ tools: ["calculate"] }), "triple 7");
    expect(listConversationOwnTools).toHaveBeenCalledExactlyOnceWith("conversation-1", "owner-1");
    expect(searchTools).toHaveBeenCalledExactlyOnceWith({
      ownerId: "owner-1",
      query: "triple 7",
      k: config.retrievedTools,
      scope: "library",
    });
    // The free slots go to recently used tools other than those already offered.
    expect(recentlyUsedLibraryTools).toHaveBeenCalledExactlyOnceWith(
      "owner-1",
      ["calculate", "double", "run_code", "triple"],
      config.retrievedTools - 2,
    );
    // run_code is not allowed by the profile; the stored tools that took built-in names are not offered either,
    // and the conversation's own double wins over the library's.
    expect(toolset.names()).toEqual(["calculate", "search_tools", "double", "triple", "halve"]);
    expect(toolset.get("calculate")).toBe(calculate);
    expect(toolset.get("double")?.versionId).toBe("stored-double");
  });

  it("calls a library tool it was not offered by its name, and no built-in the profile leaves out", async () => {
    vi.mocked(listConversationOwnTools).mockResolvedValue([]);
    vi.mocked(searchTools).mockResolvedValue([]);
    vi.mocked(recentlyUsedLibraryTools).mockResolvedValue([]);
    vi.mocked(findLibraryTool).mockImplementation(async (_owner, name) => (name === "halve" ? row("halve") : null));
    const toolset = await loadToolset("conversation-1", "owner-1", profile({ tools: [] }), "hello");
    const caller = { ownerId: "owner-1", conversationId: "conversation-1", runId: "run-1" };
    await toolset.call("halve", { input: {}, caller });
    expect(toolset.get("halve")?.versionId).toBe("stored-halve");
    expect(toolset.names()).toEqual(["search_tools", "halve"]);
    const denied = await toolset.call("run_code", { input: {}, caller });
    expect(denied.result).toMatchObject({ ok: false, error: expect.stringContaining('no tool named "run_code"') });
    expect(findLibraryTool).toHaveBeenCalledExactlyOnceWith("owner-1", "halve");
  });
});

describe("callTool: the one path of every tool call", () => {
  it("records a successful call once in the audit log and once as an execution", async () => {
    const chosen = profile();
    const outcome = await callTool({
      name: "calculate",
      tool: calculate,
      input: { expression: "2 + 2" },
      caller: chat,
      profile: chosen,
    });
    expect(outcome).toMatchObject({ result: { ok: true, output: 4 }, decision: "allowed" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(audits).toHaveBeenCalledExactlyOnceWith({
      ownerId: "owner-1",
      conversationId: "conversation-1",
      runId: "run-1",
      tool: "calculate",
      profile: chosen.name,
      decision: "allowed",
      reason: undefined,
      input: { expression: "2 + 2" },
      outcome: "succeeded",
      durationMs: outcome.durationMs,
    });
    expect(executions).toHaveBeenCalledExactlyOnceWith({
      source: "chat",
      conversationId: "conversation-1",
      runId: "run-1",
      callId: "call-1",
      toolName: "calculate",
      versionId: undefined,
      input: { expression: "2 + 2" },
      output: 4,
      error: undefined,
      status: "succeeded",
      durationMs: outcome.durationMs,
    });
  });

  describe("input that does not match the tool's schema", () => {
    it("is refused with the problems, for the API to answer 400, and the tool does not run", async () => {
      const tool = watchedCalculate();
      const outcome = await callTool({ name: "calculate", tool, input: { expr: "1" }, caller: api });
      expect(outcome.decision).toBe("refused");
      expect(outcome.invalidInput).toEqual(expect.arrayContaining([expect.stringContaining("expression")]));
      expect(outcome.result).toEqual({
        ok: false,
        error: `Invalid input for calculate: ${outcome.invalidInput!.join("; ")}.`,
      });
      expect(tool.execute).not.toHaveBeenCalled();
    });

    it("shows five problems at most in the error, and all of them in invalidInput", async () => {
      const problems = ["a", "b", "c", "d", "e", "f", "g"].map((field) => `${field}: required`);
      const tool = storedTool("many", async () => ({ ok: true, output: null }), {
        parse: () => ({ ok: false, problems }),
      });
      const outcome = await callTool({ name: "many", tool, input: {}, caller: api });
      expect(outcome.invalidInput).toEqual(problems);
      expect(outcome.result).toEqual({
        ok: false,
        error: `Invalid input for many: ${problems.slice(0, 5).join("; ")}.`,
      });
    });

    it("from the API: is audited, and no execution is recorded", async () => {
      await callTool({ name: "calculate", tool: calculate, input: {}, caller: api });
      expect(audits).toHaveBeenCalledExactlyOnceWith(
        expect.objectContaining({ tool: "calculate", decision: "refused", reason: expect.stringContaining("Invalid") }),
      );
      expect(executions).not.toHaveBeenCalled();
    });

    it("from a run: is audited, and recorded as a failed execution (the model read the refusal)", async () => {
      await callTool({ name: "calculate", tool: calculate, input: {}, caller: chat, profile: profile() });
      expect(audits).toHaveBeenCalledOnce();
      expect(executions).toHaveBeenCalledExactlyOnceWith(
        expect.objectContaining({ source: "chat", status: "failed", error: expect.stringContaining("Invalid input") }),
      );
    });
  });

  it("refuses a call whose arguments were not JSON with the problem, without running the tool", async () => {
    const tool = watchedCalculate();
    const problem = "The arguments for calculate are not valid JSON: {expression";
    const outcome = await callTool({ name: "calculate", tool, input: "{expression", problem, caller: chat });
    expect(outcome).toMatchObject({ result: { ok: false, error: problem }, decision: "refused" });
    expect(tool.execute).not.toHaveBeenCalled();
    // The model read the refusal as the call's result: it is audited and counted as a failed call.
    expect(audits).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ tool: "calculate", decision: "refused", reason: problem, outcome: undefined }),
    );
    expect(executions).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ toolName: "calculate", status: "failed", error: problem, source: "chat" }),
    );
  });

  describe("a profile's rate limit", () => {
    it("refuses the calls past its budget, per owner, until the bucket refills", async () => {
      // The buckets refill on the monotonic clock.
      vi.useFakeTimers({ toFake: ["performance"] });
      const limited = profile({ tool_config: { calculate: { rate_limit: { calls: 2, per_seconds: 60 } } } });
      const tool = watchedCalculate();
      const call = (ownerId = "owner-1") =>
        callTool({
          name: "calculate",
          tool,
          input: { expression: "1 + 1" },
          caller: { ...chat, ownerId },
          profile: limited,
        });

      expect((await call()).decision).toBe("allowed");
      expect((await call()).decision).toBe("allowed");
      const refused = await call();
      expect(refused).toMatchObject({
        decision: "rate_limited",
        result: {
          ok: false,
          error: `calculate is rate-limited in the "${limited.name}" profile; try again in 30 s.`,
        },
      });
      expect(tool.execute).toHaveBeenCalledTimes(2);
      expect(audits).toHaveBeenLastCalledWith(
        expect.objectContaining({ decision: "rate_limited", reason: refused.result.ok ? "" : refused.result.error }),
      );
      // Another owner has a budget of their own.
      expect((await call("owner-2")).decision).toBe("allowed");
      // Half a minute later, one call's worth has come back.
      vi.advanceTimersByTime(30_000);
      expect((await call()).decision).toBe("allowed");
      expect((await call()).decision).toBe("rate_limited");
    });

    it("is kept per profile", async () => {
      const limit = { calculate: { rate_limit: { calls: 1, per_seconds: 3600 } } };
      const [first, second] = [profile({ tool_config: limit }), profile({ tool_config: limit })];
      const call = (chosen: AgentProfile) =>
        callTool({ name: "calculate", tool: calculate, input: { expression: "1" }, caller: chat, profile: chosen });
      expect((await call(first)).decision).toBe("allowed");
      expect((await call(first)).decision).toBe("rate_limited");
      expect((await call(second)).decision).toBe("allowed");
    });
  });

  describe("a profile's approval", () => {
    const careful = () => profile({ approval: ["calculate"] });
    /** A calculate call under `careful`, which a person approves. */
    const approved = (tool: AgentTool, input: unknown) =>
      callTool({ name: "calculate", tool, input, caller: chat, profile: careful(), requestApproval: async () => true });

    it("audits a call the tool refused by policy as refused, with its reason, even after a person approved it", async () => {
      const reason = "cat is not among the commands this profile allows (ls).";
      const tool = { ...calculate, execute: vi.fn(async () => refused(reason)) };
      const outcome = await approved(tool, { expression: "1" });
      expect(outcome).toMatchObject({ decision: "refused", result: { ok: false, error: reason, refused: true } });
      expect(audits).toHaveBeenCalledExactlyOnceWith(
        expect.objectContaining({ decision: "refused", reason, outcome: undefined }),
      );
      // The model read the refusal: the run's call is a failed execution, as every refused call from a run is.
      expect(executions).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ status: "failed", error: reason }));
    });

    it("asks with the checked input, and a denial refuses the call without running it", async () => {
      // A schema that tidies its input: the person is shown what would run.
      const tool = {
        ...watchedCalculate(),
        parse: (input: unknown) => ({
          ok: true as const,
          input: { expression: String(Object(input).expression).trim() },
        }),
      };
      const requestApproval = vi.fn(async () => false);
      const outcome = await callTool({
        name: "calculate",
        tool,
        input: { expression: "  6 * 7 " },
        caller: chat,
        profile: careful(),
        requestApproval,
      });
      expect(requestApproval).toHaveBeenCalledExactlyOnceWith("calculate", { expression: "6 * 7" });
      expect(outcome).toMatchObject({
        decision: "denied",
        result: { ok: false, error: expect.stringContaining("A person denied this calculate call") },
      });
      expect(tool.execute).not.toHaveBeenCalled();
      expect(audits).toHaveBeenCalledExactlyOnceWith(
        expect.objectContaining({ decision: "denied", outcome: undefined }),
      );
      expect(executions).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ status: "failed" }));
    });

    it("runs the call once approved", async () => {
      const tool = watchedCalculate();
      const outcome = await approved(tool, { expression: "6 * 7" });
      expect(outcome).toMatchObject({ decision: "approved", result: { ok: true, output: 42 } });
      expect(tool.execute).toHaveBeenCalledOnce();
      expect(audits).toHaveBeenCalledExactlyOnceWith(
        expect.objectContaining({ decision: "approved", outcome: "succeeded" }),
      );
      expect(executions).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ status: "succeeded", output: 42 }));
    });

    it("denies the call when no one can be asked", async () => {
      const tool = watchedCalculate();
      const outcome = await callTool({
        name: "calculate",
        tool,
        input: { expression: "1" },
        caller: chat,
        profile: careful(),
      });
      expect(outcome.decision).toBe("denied");
      expect(tool.execute).not.toHaveBeenCalled();
    });

    it("asks before a call of a tool that asks for approval itself, under any profile", async () => {
      const tool = storedTool("remote__delete", async () => ({ ok: true, output: "deleted" }), {
        asksApproval: true,
        mcpServer: "remote",
      });
      const requestApproval = vi.fn(async () => true);
      const call = { name: "remote__delete", tool, input: { text: "x" }, caller: chat, profile: profile() };
      // The outcome names the MCP server that answered, for the trace.
      expect(await callTool({ ...call, requestApproval })).toMatchObject({ decision: "approved", server: "remote" });
      expect(requestApproval).toHaveBeenCalledExactlyOnceWith("remote__delete", { text: "x" });
      expect(await callTool(call)).toMatchObject({ decision: "denied", result: { ok: false } });
    });

    it("is not asked for invalid input", async () => {
      const requestApproval = vi.fn(async () => true);
      const outcome = await callTool({
        name: "calculate",
        tool: calculate,
        input: { nope: 1 },
        caller: chat,
        profile: careful(),
        requestApproval,
      });
      expect(outcome.decision).toBe("refused");
      expect(requestApproval).not.toHaveBeenCalled();
    });
  });

  it("gives a run's call the W3C traceparent of its execute_tool span, and an API call none", async () => {
    const seen: (string | undefined)[] = [];
    const tool = storedTool("echo", async (_input, context) => {
      seen.push(context.traceparent);
      return { ok: true, output: "ok" };
    });
    await callTool({ name: "echo", tool, input: { text: "x" }, caller: { ...chat, step: 2 } });
    await callTool({ name: "echo", tool, input: { text: "x" }, caller: api });
    expect(seen).toEqual([toolCallTraceparent("run-1", 2, "call-1"), undefined]);
    expect(seen[0]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen[0]).toBe(`00-${traceIdOf("run-1")}-${spanIdOf("run-1", toolSpanKey(2, "call-1"))}-01`);
  });

  it("turns a tool that throws into a failed result with its message", async () => {
    const tool = storedTool("flaky", async () => {
      throw new Error("the disk is full");
    });
    const outcome = await callTool({ name: "flaky", tool, input: { text: "x" }, caller: chat });
    expect(outcome).toMatchObject({
      result: { ok: false, error: "flaky failed: the disk is full" },
      decision: "allowed",
    });
    expect(audits).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ decision: "allowed", outcome: "failed", reason: undefined }),
    );
    expect(executions).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ status: "failed", error: "flaky failed: the disk is full", versionId: "stored-flaky" }),
    );
  });

  it("records a cancelled call as cancelled", async () => {
    const tool = storedTool("slow", async () => ({ ok: false, error: "cancelled", cancelled: true }));
    await callTool({ name: "slow", tool, input: { text: "x" }, caller: chat });
    expect(audits).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ outcome: "cancelled" }));
    expect(executions).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ status: "cancelled" }));
  });

  it("cuts output longer than the cap with the marker, as it records it", async () => {
    const long = "y".repeat(config.toolOutputChars + 500);
    const tool = storedTool("big", async () => ({ ok: true, output: long }));
    const outcome = await callTool({ name: "big", tool, input: { text: "x" }, caller: api });
    const shown =
      "y".repeat(config.toolOutputChars) +
      `\n…[truncated: the output was ${long.length} characters; only the first ${config.toolOutputChars} are shown]`;
    expect(outcome.result).toEqual({ ok: true, output: shown, truncated: true });
    expect(executions).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ source: "api", output: shown }));
  });

  it("still answers when its records cannot be written, and says so in the log", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    audits.mockRejectedValueOnce(new Error("database is down"));
    executions.mockRejectedValueOnce(new Error("database is down"));
    const outcome = await callTool({
      name: "calculate",
      tool: calculate,
      input: { expression: "1 + 2" },
      caller: chat,
    });
    expect(outcome.result).toEqual({ ok: true, output: 3 });
    await vi.waitFor(() => expect(logged).toHaveBeenCalledTimes(2));
    expect(logged.mock.calls.map(([message]) => message)).toEqual([
      "Could not record a tool call in the audit log:",
      "Could not record a tool execution:",
    ]);
  });
});

describe("tools.call: a tool's code calling other tools", () => {
  /** A tool whose execute calls `target` through the context, as a stored tool's code does with tools.call. */
  const caller = (name: string, target: string) =>
    storedTool(name, async ({ text }, context) => {
      const inner = await context.callTool!(target, { text: `${text}!` }, context.signal);
      return inner.ok ? { ok: true, output: `${name}(${String(inner.output)})` } : inner;
    });
  const echo = storedTool("echo", async ({ text }) => ({ ok: true, output: text }));

  it("goes the one path for each inner call, told to the trace under its caller, audited as the person's", async () => {
    const nested: unknown[] = [];
    const tools = new Toolset([caller("outer", "middle"), caller("middle", "echo"), echo], profile());
    const outcome = await tools.call("outer", {
      input: { text: "hi" },
      caller: { ...runCaller, callId: "call-1", step: 1 },
      onNested: (event) => nested.push(event),
    });
    expect(outcome.result).toEqual({ ok: true, output: "outer(middle(hi!!))" });
    expect(nested).toEqual([
      { type: "nested_tool_call", callId: "call-1.1", parentCallId: "call-1", name: "middle", input: { text: "hi!" } },
      {
        type: "nested_tool_call",
        callId: "call-1.1.1",
        parentCallId: "call-1.1",
        name: "echo",
        input: { text: "hi!!" },
      },
      expect.objectContaining({ type: "nested_tool_result", callId: "call-1.1.1", ok: true, output: "hi!!" }),
      expect.objectContaining({ type: "nested_tool_result", callId: "call-1.1", ok: true, output: "middle(hi!!)" }),
    ]);
    expect(audits.mock.calls.map(([entry]) => entry.tool)).toEqual(["echo", "middle", "outer"]);
  });

  it("refuses a cycle, and a chain deeper than MAX_CALL_DEPTH, as refused calls the trace shows", async () => {
    const cycle = new Toolset([caller("ping", "pong"), caller("pong", "ping")], profile());
    const looped = await cycle.call("ping", { input: { text: "x" }, caller: { ...runCaller, callId: "c" } });
    expect(looped.result).toMatchObject({ ok: false, error: expect.stringContaining("ping → pong → ping is a cycle") });
    expect(audits).toHaveBeenCalledWith(expect.objectContaining({ tool: "ping", decision: "refused" }));

    const chain = Array.from({ length: MAX_CALL_DEPTH + 1 }, (_, index) => caller(`t${index}`, `t${index + 1}`));
    const deep = new Toolset([...chain, storedTool(`t${MAX_CALL_DEPTH + 1}`, async () => ({ ok: true, output: 1 }))]);
    const outcome = await deep.call("t0", { input: { text: "x" }, caller: { ...runCaller, callId: "c" } });
    expect(outcome.result).toMatchObject({
      ok: false,
      error: expect.stringContaining(`deeper than ${MAX_CALL_DEPTH}`),
    });
  });

  it("cannot reach a tool the run does not have, nor one that changes the run's tools", async () => {
    const changer = { ...echo, name: "maker", changesToolset: true };
    const tools = new Toolset([caller("a", "nope"), caller("b", "maker"), changer], profile());
    const missing = await tools.call("a", { input: { text: "x" }, caller: { ...runCaller, callId: "c" } });
    expect(missing.result).toMatchObject({ ok: false, error: expect.stringContaining('no tool named "nope"') });
    const making = await tools.call("b", { input: { text: "x" }, caller: { ...runCaller, callId: "c" } });
    expect(making.result).toMatchObject({ ok: false, error: expect.stringContaining("changes the run's tools") });
  });
});
