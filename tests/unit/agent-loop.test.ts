import { APICallError, jsonSchema, tool, type ModelMessage, type ToolSet } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "@/lib/contract/events";
import { conversationHistory } from "@/lib/agent/history";
import { runAgent, type AgentRun, type LoopToolset } from "@/lib/agent/loop";
import { IdleTimeout } from "@/lib/agent/model-step";
import { PLANNING_INSTRUCTION, RunPlan } from "@/lib/agent/plan";
import { SYSTEM_PROMPT } from "@/lib/agent/system-prompt";
import type { CallOutcome } from "@/lib/tools/call";
import type { RunCall } from "@/lib/tools/toolset";
import type { ToolResult } from "@/lib/tools/types";

// The loop reads no database: were anything it imports to load the database client, this file would not load.
vi.mock("@/lib/db/driver/client", () => {
  throw new Error("the agent loop loaded the database client");
});

afterEach(() => vi.restoreAllMocks());

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const finish = (unified: "stop" | "tool-calls" = "stop"): StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: unified },
  usage,
});
const text = (...deltas: string[]): StreamPart[] => [
  { type: "text-start", id: "t" },
  ...deltas.map((delta): StreamPart => ({ type: "text-delta", id: "t", delta })),
  { type: "text-end", id: "t" },
];
const toolCall = (toolCallId: string, toolName: string, input: unknown): StreamPart => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input: typeof input === "string" ? input : JSON.stringify(input),
});
/** One model response: its parts, streamed. */
const reply = (...parts: (StreamPart | StreamPart[])[]) => ({ stream: convertArrayToReadableStream(parts.flat()) });
/** A model that answers its calls with these responses, in order (one more call fails the test's run). */
const modelReplying = (...replies: ReturnType<typeof reply>[]) => new MockLanguageModelV4({ doStream: replies });

/** A model that streams these parts, then nothing, until its request is aborted. */
const modelThenSilent = (...parts: StreamPart[]) =>
  new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<StreamPart>({
        start(stream) {
          for (const part of parts) stream.enqueue(part);
          abortSignal?.addEventListener("abort", () => stream.error(abortSignal.reason));
        },
      }),
    }),
  });

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

interface FakeTool {
  changesToolset?: boolean;
  run?: (call: RunCall) => Promise<ToolResult> | ToolResult;
}

/** The run's tools, as the loop sees them: it records every call, and when each started and ended. */
class FakeToolset implements LoopToolset {
  readonly calls: { name: string; call: RunCall }[] = [];
  readonly log: string[] = [];

  constructor(readonly tools: Record<string, FakeTool>) {}

  forModel(): ToolSet {
    return Object.fromEntries(
      Object.keys(this.tools).map((name) => [
        name,
        tool({ description: `the ${name} tool`, inputSchema: jsonSchema({ type: "object" }) }),
      ]),
    );
  }

  get(name: string) {
    return this.tools[name];
  }

  async call(name: string, call: RunCall): Promise<CallOutcome> {
    this.calls.push({ name, call });
    this.log.push(`start ${call.caller.callId}`);
    const result = (await this.tools[name]?.run?.(call)) ?? { ok: true, output: `${name} done` };
    this.log.push(`end ${call.caller.callId}`);
    return { result, decision: "allowed", durationMs: 7.4 };
  }
}

const caller = { ownerId: "owner-1", conversationId: "conversation-1", runId: "run-1" };

/** Run the loop with a fake model and toolset; returns its outcome and every event it emitted, in order. */
async function run(
  options: Partial<Omit<AgentRun, "model">> & {
    model: MockLanguageModelV4 | undefined;
    tools: LoopToolset;
    idleMs?: number;
    refusesToolChoice?: boolean;
  },
) {
  const events: AgentEvent[] = [];
  const { model, idleMs = 60_000, refusesToolChoice, ...rest } = options;
  // A clock that ticks at each reading: the times in the events show when the loop read it.
  let clock = 1_000;
  const outcome = await runAgent({
    messages: [{ role: "user", content: "What is 2 + 2?" }],
    caller,
    maxSteps: 10,
    emit: (event) => events.push(event),
    now: () => clock++,
    stored: async () => {},
    signal: new AbortController().signal,
    requestApproval: async () => true,
    ...rest,
    model: model && { model, idle: new IdleTimeout(idleMs), maxRetries: 0, refusesToolChoice },
  });
  return { outcome, events };
}

const types = (events: AgentEvent[]) => events.map((event) => event.type);

describe("the agent loop, with a fake model and fake tools", () => {
  it("completes with the answer when the model calls no tool", async () => {
    const model = modelReplying(reply(text("2 + 2 ", "= 4."), finish()));
    const tools = new FakeToolset({ calculate: {} });
    const { outcome, events } = await run({ model, tools });

    expect(outcome).toEqual({ status: "completed", steps: 1, answer: "2 + 2 = 4." });
    expect(events).toEqual([
      { type: "step_started", step: 1 },
      { type: "text_delta", step: 1, delta: "2 + 2 " },
      { type: "text_delta", step: 1, delta: "= 4." },
      {
        type: "step_finished",
        step: 1,
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 5 },
        model: { firstByteAt: 1_000, lastByteAt: 1_001 },
      },
    ]);
    expect(tools.calls).toEqual([]);
    // The model was asked once, with the system prompt, the conversation and the tools.
    expect(model.doStreamCalls).toHaveLength(1);
    const [request] = model.doStreamCalls;
    expect(request.prompt).toEqual([
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: [{ type: "text", text: "What is 2 + 2?" }] },
    ]);
    expect(request.tools?.map((offered) => offered.name)).toEqual(["calculate"]);
  });

  it("streams a tool call, then its result, and gives the result to the model in the next step", async () => {
    const model = modelReplying(
      reply(text("Let me compute."), toolCall("call-1", "calculate", { expression: "2 + 2" }), finish("tool-calls")),
      reply(text("It is 4."), finish()),
    );
    const tools = new FakeToolset({ calculate: { run: () => ({ ok: true, output: { value: 4 } }) } });
    const { outcome, events } = await run({ model, tools });

    expect(outcome).toEqual({ status: "completed", steps: 2, answer: "It is 4." });
    expect(events).toEqual([
      { type: "step_started", step: 1 },
      { type: "text_delta", step: 1, delta: "Let me compute." },
      { type: "tool_call", step: 1, callId: "call-1", name: "calculate", input: { expression: "2 + 2" } },
      {
        type: "tool_result",
        step: 1,
        callId: "call-1",
        name: "calculate",
        ok: true,
        output: { value: 4 },
        durationMs: 7,
        startedAt: 1_002,
      },
      {
        type: "step_finished",
        step: 1,
        finishReason: "tool-calls",
        usage: { inputTokens: 10, outputTokens: 5 },
        model: { firstByteAt: 1_000, lastByteAt: 1_001 },
      },
      { type: "step_started", step: 2 },
      { type: "text_delta", step: 2, delta: "It is 4." },
      {
        type: "step_finished",
        step: 2,
        finishReason: "stop",
        usage: { inputTokens: 10, outputTokens: 5 },
        model: { firstByteAt: 1_003, lastByteAt: 1_004 },
      },
    ]);

    // The tool was called once, for the run's owner, in its conversation, with the model's call id.
    expect(tools.calls).toHaveLength(1);
    expect(tools.calls[0].name).toBe("calculate");
    expect(tools.calls[0].call).toMatchObject({
      input: { expression: "2 + 2" },
      caller: { ...caller, callId: "call-1" },
    });
    expect(tools.calls[0].call.problem).toBeUndefined();

    // The second request holds the first step: the assistant's text and call, then the tool's result.
    expect(model.doStreamCalls).toHaveLength(2);
    expect(model.doStreamCalls[1].prompt.slice(1)).toEqual([
      { role: "user", content: [{ type: "text", text: "What is 2 + 2?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me compute." },
          { type: "tool-call", toolCallId: "call-1", toolName: "calculate", input: { expression: "2 + 2" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call-1",
            toolName: "calculate",
            output: { type: "json", value: { value: 4 } },
          },
        ],
      },
    ]);
  });

  it("appends each step to the conversation it was given", async () => {
    const messages: ModelMessage[] = [{ role: "user", content: "Hi" }];
    const model = modelReplying(reply(toolCall("c", "echo", {}), finish("tool-calls")), reply(text("Done"), finish()));
    await run({ model, tools: new FakeToolset({ echo: { run: () => ({ ok: true, output: "echoed" }) } }), messages });
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[2]).toMatchObject({ content: [{ toolCallId: "c", output: { type: "text", value: "echoed" } }] });
  });

  it("stores the tool calls before any of them acts", async () => {
    const stored = deferred();
    const model = modelReplying(reply(toolCall("c1", "echo", {}), finish("tool-calls")), reply(text("ok"), finish()));
    const tools = new FakeToolset({ echo: {} });
    const events: AgentEvent[] = [];
    const storedSoFar: number[] = [];
    const done = runAgent({
      model: { model, idle: new IdleTimeout(60_000), maxRetries: 0 },
      tools,
      messages: [{ role: "user", content: "echo" }],
      caller,
      maxSteps: 5,
      emit: (event) => events.push(event),
      now: Date.now,
      stored: () => {
        storedSoFar.push(events.length);
        return stored.promise;
      },
      signal: new AbortController().signal,
      requestApproval: async () => true,
    });
    await vi.waitFor(() => expect(storedSoFar).toHaveLength(1));
    // Asked to store once the call was emitted; the tool has not started, and does not until the store answers.
    expect(events.at(-1)).toMatchObject({ type: "tool_call", callId: "c1" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(tools.calls).toEqual([]);
    stored.resolve();
    expect((await done).status).toBe("completed");
    expect(tools.calls).toHaveLength(1);
  });

  it("runs the calls that change the tool set first, one at a time, then the others together", async () => {
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    const tools = new FakeToolset({});
    const registering: FakeTool = {
      changesToolset: true,
      run: async (call) => {
        await tick();
        const name = (call.input as { name: string }).name;
        tools.tools[name] = {};
        return { ok: true, output: `registered ${name}` };
      },
    };
    tools.tools.register_tool = registering;
    tools.tools.calculate = { run: async () => (await tick(), { ok: true, output: 1 }) };
    const model = modelReplying(
      reply(
        toolCall("c1", "calculate", { expression: "1" }),
        toolCall("r1", "register_tool", { name: "first_tool" }),
        toolCall("r2", "register_tool", { name: "second_tool" }),
        toolCall("c2", "calculate", { expression: "1" }),
        finish("tool-calls"),
      ),
      reply(text("Both are registered."), finish()),
    );
    const { outcome, events } = await run({ model, tools });

    expect(outcome.status).toBe("completed");
    // Each registration ends before the next call starts; the other calls start together, after them.
    expect(tools.log).toEqual(["start r1", "end r1", "start r2", "end r2", "start c1", "start c2", "end c1", "end c2"]);
    // What the trace shows: each registration's call and result, then the other calls and their results.
    const step1 = events.filter((event) => event.type === "tool_call" || event.type === "tool_result");
    expect(step1.map((event) => `${event.type} ${"callId" in event ? event.callId : ""}`)).toEqual([
      "tool_call r1",
      "tool_result r1",
      "tool_call r2",
      "tool_result r2",
      "tool_call c1",
      "tool_call c2",
      "tool_result c1",
      "tool_result c2",
    ]);
    // Tools registered in step 1 are offered to the model from step 2 on.
    expect(model.doStreamCalls[0].tools?.map((offered) => offered.name)).toEqual(["register_tool", "calculate"]);
    expect(model.doStreamCalls[1].tools?.map((offered) => offered.name)).toEqual([
      "register_tool",
      "calculate",
      "first_tool",
      "second_tool",
    ]);
    // The model reads the results in the order it made the calls.
    const results = model.doStreamCalls[1].prompt.at(-1)!.content as { toolCallId: string }[];
    expect(results.map((result) => result.toolCallId)).toEqual(["c1", "r1", "r2", "c2"]);
  });

  it("says when a tool was registered or rejected", async () => {
    const view = {
      id: "t1",
      versionId: "v1",
      name: "double",
      description: "Doubles",
      parametersSchema: {},
      code: "function run(i) { return i.x * 2; }",
      version: 1,
    };
    const rejected = { name: "bad", language: "javascript" as const, code: "policy_violation", violations: [] };
    const tools = new FakeToolset({
      register_tool: {
        changesToolset: true,
        run: (call) =>
          (call.input as { name: string }).name === "double"
            ? { ok: true, output: "registered", registered: view }
            : { ok: false, error: "rejected", rejected },
      },
    });
    const model = modelReplying(
      reply(
        toolCall("r1", "register_tool", { name: "double" }),
        toolCall("r2", "register_tool", { name: "bad" }),
        finish("tool-calls"),
      ),
      reply(text("ok"), finish()),
    );
    const { events } = await run({ model, tools });
    // The PR's client reads the name and description at the top level.
    expect(events).toContainEqual({
      type: "tool_registered",
      step: 1,
      callId: "r1",
      tool: view,
      tool_name: view.name,
      description: view.description,
    });
    expect(events).toContainEqual({ type: "tool_rejected", step: 1, callId: "r2", ...rejected });
    // Each comes before the call's result.
    expect(types(events).indexOf("tool_registered")).toBe(types(events).indexOf("tool_result") - 1);
  });

  it("ends with max_steps at the step ceiling, each step having run its calls", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => reply(text("Again."), toolCall(`c${Math.random()}`, "echo", {}), finish("tool-calls")),
    });
    const tools = new FakeToolset({ echo: {} });
    const { outcome, events } = await run({ model, tools, maxSteps: 3 });

    expect(outcome).toEqual({ status: "max_steps", steps: 3, answer: "Again." });
    expect(model.doStreamCalls).toHaveLength(3);
    expect(tools.calls).toHaveLength(3);
    expect(events.filter((event) => event.type === "step_finished").map((event) => event.step)).toEqual([1, 2, 3]);
    expect(events.at(-1)).toMatchObject({ type: "step_finished", step: 3 });
    expect(types(events)).not.toContain("error");
  });

  it("treats a failed tool call as an observation: the model reads the error and goes on", async () => {
    const model = modelReplying(
      reply(toolCall("c1", "calculate", { expression: "1/0" }), finish("tool-calls")),
      reply(text("Division by zero is undefined."), finish()),
    );
    const tools = new FakeToolset({ calculate: { run: () => ({ ok: false, error: "division by zero" }) } });
    const { outcome, events } = await run({ model, tools });

    expect(outcome).toEqual({ status: "completed", steps: 2, answer: "Division by zero is undefined." });
    expect(events).toContainEqual({
      type: "tool_result",
      step: 1,
      callId: "c1",
      name: "calculate",
      ok: false,
      error: "division by zero",
      durationMs: 7,
      startedAt: 1_002,
    });
    expect(types(events)).not.toContain("error");
    expect(model.doStreamCalls[1].prompt.at(-1)).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "calculate",
          output: { type: "error-text", value: "division by zero" },
        },
      ],
    });
  });

  it("passes a capped result on as text, marked truncated", async () => {
    const model = modelReplying(
      reply(toolCall("c1", "echo", {}), finish("tool-calls")),
      reply(text("That is long."), finish()),
    );
    const cut = "xxxx\n…[truncated: the output was 9000 characters; only the first 4 are shown]";
    const tools = new FakeToolset({ echo: { run: () => ({ ok: true, output: cut, truncated: true }) } });
    const { events } = await run({ model, tools });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ output: cut, truncated: true });
    expect(model.doStreamCalls[1].prompt.at(-1)).toMatchObject({
      content: [{ output: { type: "text", value: cut } }],
    });
  });

  it("hands a call whose arguments are not JSON to the tools with the problem", async () => {
    const model = modelReplying(
      reply(toolCall("c1", "calculate", "{expression: 2+2"), finish("tool-calls")),
      reply(text("Sorry."), finish()),
    );
    const tools = new FakeToolset({
      calculate: { run: (call) => ({ ok: false, error: call.problem ?? "no problem" }) },
    });
    const { events } = await run({ model, tools });
    expect(tools.calls[0].call.problem).toBe("The arguments for calculate are not valid JSON: {expression: 2+2");
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({
      ok: false,
      error: "The arguments for calculate are not valid JSON: {expression: 2+2",
    });
  });

  it("asks for approval with the step and the call's id", async () => {
    const model = modelReplying(
      reply(text("Sending."), toolCall("c7", "send_email", { to: "a@example.com" }), finish("tool-calls")),
      reply(text("Not sent."), finish()),
    );
    const requestApproval = vi.fn(async () => false);
    const tools = new FakeToolset({
      send_email: {
        run: async (call) =>
          (await call.requestApproval!("send_email", call.input))
            ? { ok: true, output: "sent" }
            : { ok: false, error: "denied" },
      },
    });
    const { events } = await run({ model, tools, requestApproval, resumeAfterStep: 2 });
    expect(requestApproval).toHaveBeenCalledExactlyOnceWith(3, "c7", "send_email", { to: "a@example.com" });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ step: 3, ok: false });
  });

  describe("a cancel", () => {
    it("during a registration: ends cancelled, and the step's other calls never start", async () => {
      const controller = new AbortController();
      const registration = deferred<ToolResult>();
      const tools = new FakeToolset({
        register_tool: {
          changesToolset: true,
          run: () => {
            controller.abort(new Error("The run was cancelled."));
            return registration.promise;
          },
        },
        calculate: {},
      });
      const model = modelReplying(
        reply(
          toolCall("c1", "calculate", {}),
          toolCall("r1", "register_tool", { name: "x" }),
          toolCall("c2", "calculate", {}),
          finish("tool-calls"),
        ),
      );
      let settled = false;
      const running = run({ model, tools, signal: controller.signal }).finally(() => (settled = true));
      await vi.waitFor(() => expect(tools.log).toEqual(["start r1"]));
      // The run waits for the call it started, even cancelled.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      registration.resolve({ ok: false, error: "cancelled", cancelled: true });
      const { outcome, events } = await running;

      expect(outcome.status).toBe("cancelled");
      expect(tools.log).toEqual(["start r1", "end r1"]);
      expect(events.filter((event) => event.type === "tool_call").map((event) => event.callId)).toEqual(["r1"]);
      expect(types(events)).not.toContain("step_finished");
      expect(types(events)).not.toContain("error");
      expect(model.doStreamCalls).toHaveLength(1);
    });

    it("while the calls are being stored: none of them starts", async () => {
      const controller = new AbortController();
      const model = modelReplying(reply(toolCall("c1", "echo", {}), finish("tool-calls")));
      const tools = new FakeToolset({ echo: {} });
      const { outcome, events } = await run({
        model,
        tools,
        signal: controller.signal,
        stored: async () => controller.abort(),
      });
      expect(outcome.status).toBe("cancelled");
      expect(tools.calls).toEqual([]);
      expect(types(events)).toEqual(["step_started", "tool_call"]);
    });

    it("while parallel calls run: the loop returns only once all of them settled", async () => {
      const controller = new AbortController();
      const slow = deferred<ToolResult>();
      const tools = new FakeToolset({
        fast: { run: () => (controller.abort(), { ok: false, error: "cancelled", cancelled: true }) },
        slow: { run: () => slow.promise },
      });
      const model = modelReplying(reply(toolCall("f", "fast", {}), toolCall("s", "slow", {}), finish("tool-calls")));
      let settled = false;
      const running = run({ model, tools, signal: controller.signal }).finally(() => (settled = true));
      await vi.waitFor(() => expect(tools.log).toContain("end f"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      slow.resolve({ ok: false, error: "cancelled", cancelled: true });
      expect((await running).outcome.status).toBe("cancelled");
    });

    it("when a call throws (its run left during an approval): the loop still waits for the others", async () => {
      const controller = new AbortController();
      const slow = deferred<ToolResult>();
      const tools = new FakeToolset({
        asking: {
          run: () => {
            controller.abort(new Error("The run left this instance."));
            throw new Error("The run left this instance.");
          },
        },
        slow: { run: () => slow.promise },
      });
      const model = modelReplying(reply(toolCall("a", "asking", {}), toolCall("s", "slow", {}), finish("tool-calls")));
      let settled = false;
      const running = run({ model, tools, signal: controller.signal }).finally(() => (settled = true));
      await vi.waitFor(() => expect(tools.log).toContain("start s"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      slow.resolve({ ok: false, error: "cancelled", cancelled: true });
      expect((await running).outcome.status).toBe("cancelled");
    });

    it("during the model's answer: ends cancelled, with no error and no call", async () => {
      const controller = new AbortController();
      const model = modelThenSilent(...text("I will"));
      const tools = new FakeToolset({ echo: {} });
      const events: AgentEvent[] = [];
      const running = run({
        model,
        tools,
        signal: controller.signal,
        emit: (event) => {
          events.push(event);
          if (event.type === "text_delta") controller.abort(new Error("The run was cancelled."));
        },
      });
      const { outcome } = await running;
      expect(outcome).toMatchObject({ status: "cancelled", steps: 1 });
      expect(types(events)).toEqual(["step_started", "text_delta"]);
      expect(tools.calls).toEqual([]);
    });
  });

  describe("a model failure ends the run with an error event", () => {
    it("an HTTP error, with the server's own reason", async () => {
      const model = new MockLanguageModelV4({
        doStream: async () => {
          throw new APICallError({
            message: "Bad Request",
            url: "http://model.test/v1/chat/completions",
            requestBodyValues: {},
            statusCode: 400,
            responseBody: JSON.stringify({ error: { message: "context length exceeded" } }),
            isRetryable: false,
          });
        },
      });
      const { outcome, events } = await run({ model, tools: new FakeToolset({}) });
      expect(outcome).toMatchObject({ status: "error", steps: 1 });
      expect(events.at(-1)).toEqual({
        type: "error",
        code: "model_http_error",
        message: "The model server answered 400: context length exceeded",
      });
    });

    it("a stream that breaks off", async () => {
      const model = modelReplying(reply(text("Partial"), { type: "error", error: new Error("connection reset") }));
      const { outcome, events } = await run({ model, tools: new FakeToolset({}) });
      expect(outcome.status).toBe("error");
      expect(events.at(-1)).toEqual({
        type: "error",
        code: "model_error",
        message: "The model request failed: connection reset",
      });
    });

    it("a model that goes silent for longer than the idle timeout", async () => {
      const model = modelThenSilent(...text("Thinking"));
      const { outcome, events } = await run({ model, tools: new FakeToolset({}), idleMs: 50 });
      expect(outcome.status).toBe("error");
      expect(events.at(-1)).toEqual({
        type: "error",
        code: "model_error",
        message: "The model request failed: The model sent nothing for 50 ms.",
      });
    });

    it("a stream that ends without finishing", async () => {
      const model = modelReplying(reply(text("Partial")));
      const { outcome, events } = await run({ model, tools: new FakeToolset({}) });
      expect(outcome.status).toBe("error");
      expect(events.at(-1)).toMatchObject({ type: "error", code: "model_error" });
      expect((events.at(-1) as { message: string }).message).toContain("ended before the model finished");
    });

    it("a retryable error is retried, within maxRetries", async () => {
      const overloaded = new APICallError({
        message: "Service Unavailable",
        url: "http://model.test",
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      });
      const replies = [reply(text("Recovered."), finish())];
      const model = new MockLanguageModelV4({
        doStream: async () => {
          if (model.doStreamCalls.length === 1) throw overloaded;
          return replies.shift()!;
        },
      });
      const events: AgentEvent[] = [];
      const outcome = await runAgent({
        model: { model, idle: new IdleTimeout(60_000), maxRetries: 1 },
        tools: new FakeToolset({}),
        messages: [{ role: "user", content: "Hi" }],
        caller,
        maxSteps: 3,
        emit: (event) => events.push(event),
        now: Date.now,
        stored: async () => {},
        signal: new AbortController().signal,
        requestApproval: async () => true,
      });
      expect(outcome).toEqual({ status: "completed", steps: 1, answer: "Recovered." });
      expect(model.doStreamCalls).toHaveLength(2);
      expect(types(events)).not.toContain("error");
    });
  });

  it("without a model, ends at once with model_not_configured and what to set", async () => {
    const tools = new FakeToolset({ echo: {} });
    const { outcome, events } = await run({ model: undefined, tools });
    expect(outcome).toEqual({ status: "error", steps: 0, answer: "" });
    expect(events).toEqual([
      {
        type: "error",
        code: "model_not_configured",
        message: expect.stringMatching(/Set OPENAI_API_KEY .* OPENAI_BASE_URL/),
      },
    ]);
    expect(tools.calls).toEqual([]);
  });

  it("ends with internal_error, logged, when the events cannot be stored", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const model = modelReplying(reply(toolCall("c1", "echo", {}), finish("tool-calls")));
    const tools = new FakeToolset({ echo: {} });
    const { outcome, events } = await run({
      model,
      tools,
      stored: () => Promise.reject(new Error("database is down")),
    });
    expect(outcome.status).toBe("error");
    expect(tools.calls).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "error", code: "internal_error" });
    expect(logged).toHaveBeenCalled();
  });

  describe("a run taken over (resumeAfterStep)", () => {
    it("numbers its steps after the ones already finished", async () => {
      const model = modelReplying(
        reply(toolCall("c1", "echo", {}), finish("tool-calls")),
        reply(text("Finished."), finish()),
      );
      const { outcome, events } = await run({ model, tools: new FakeToolset({ echo: {} }), resumeAfterStep: 4 });
      expect(outcome).toEqual({ status: "completed", steps: 6, answer: "Finished." });
      const steps = events.filter((event) => "step" in event).map((event) => (event as { step: number }).step);
      expect(new Set(steps)).toEqual(new Set([5, 6]));
      expect(events[0]).toEqual({ type: "step_started", step: 5 });
    });

    it("counts the finished steps against the ceiling", async () => {
      const model = new MockLanguageModelV4({
        doStream: async () => reply(toolCall(`c${Math.random()}`, "echo", {}), finish("tool-calls")),
      });
      const { outcome } = await run({ model, tools: new FakeToolset({ echo: {} }), resumeAfterStep: 8, maxSteps: 10 });
      expect(outcome).toMatchObject({ status: "max_steps", steps: 10 });
      expect(model.doStreamCalls).toHaveLength(2);
    });
  });
});

describe("Claude's signed thinking within a run", () => {
  it("streams it as reasoning, and sends each block back with its signature ahead of the step's call", async () => {
    const thinking = (id: string, deltas: string[], signature: string): StreamPart[] => [
      { type: "reasoning-start", id },
      ...deltas.map((delta): StreamPart => ({ type: "reasoning-delta", id, delta })),
      { type: "reasoning-delta", id, delta: "", providerMetadata: { anthropic: { signature } } },
      { type: "reasoning-end", id },
    ];
    const redacted: StreamPart[] = [
      { type: "reasoning-start", id: "r0", providerMetadata: { anthropic: { redactedData: "ENCRYPTED" } } },
      { type: "reasoning-end", id: "r0" },
    ];
    const model = modelReplying(
      reply(
        redacted,
        thinking("r1", ["Use the ", "calculator."], "sig-1"),
        toolCall("c1", "calculate", {}),
        finish("tool-calls"),
      ),
      reply(text("Done."), finish()),
    );
    const { outcome, events } = await run({ model, tools: new FakeToolset({ calculate: {} }) });
    expect(outcome.status).toBe("completed");
    expect(events.filter((event) => event.type === "reasoning_delta")).toEqual([
      { type: "reasoning_delta", step: 1, delta: "", redacted: "ENCRYPTED" },
      { type: "reasoning_delta", step: 1, delta: "Use the " },
      { type: "reasoning_delta", step: 1, delta: "calculator." },
      { type: "reasoning_delta", step: 1, delta: "", signature: "sig-1" },
    ]);
    expect(model.doStreamCalls[1].prompt[2]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "ENCRYPTED" } } },
        { type: "reasoning", text: "Use the calculator.", providerOptions: { anthropic: { signature: "sig-1" } } },
        { type: "tool-call", toolCallId: "c1", toolName: "calculate", input: {} },
      ],
    });
  });
});

describe("the history rebuilt from the log (a later turn, a run taken over)", () => {
  it("gives each step its signed thinking ahead of its calls; unsigned reasoning and the unfinished step stay out", () => {
    const logged: AgentEvent[] = [
      { type: "step_started", step: 1 },
      { type: "reasoning_delta", step: 1, delta: "", redacted: "ENCRYPTED" },
      { type: "reasoning_delta", step: 1, delta: "Use the " },
      { type: "reasoning_delta", step: 1, delta: "calculator." },
      { type: "reasoning_delta", step: 1, delta: "", signature: "sig-1" },
      { type: "tool_call", step: 1, callId: "c1", name: "calculate", input: { expression: "1+1" } },
      { type: "tool_result", step: 1, callId: "c1", name: "calculate", ok: true, output: 2, durationMs: 1 },
      { type: "step_finished", step: 1, finishReason: "tool-calls" },
      // Step 2 streamed on the instance that died: not in the history of the run that takes it over.
      { type: "step_started", step: 2 },
      { type: "reasoning_delta", step: 2, delta: "Half a thought", signature: "sig-2" },
    ];
    const events = logged.map((event, index) => ({ seq: index + 1, event: { ...event, runId: "r1", at: index } }));
    const history = conversationHistory([{ id: "m1", role: "user", content: "1+1?", runId: "r1" }], events, "r1");
    expect(history).toHaveLength(3);
    expect(history[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "ENCRYPTED" } } },
        { type: "reasoning", text: "Use the calculator.", providerOptions: { anthropic: { signature: "sig-1" } } },
        { type: "tool-call", toolCallId: "c1", toolName: "calculate", input: { expression: "1+1" } },
      ],
    });

    // OpenAI's reasoning carries no signature: the model is not sent it back.
    const unsigned = events.map((entry) =>
      entry.event.type === "reasoning_delta"
        ? { ...entry, event: { ...entry.event, signature: undefined, redacted: undefined } }
        : entry,
    );
    const plain = conversationHistory([{ id: "m1", role: "user", content: "1+1?", runId: "r1" }], unsigned, "r1");
    expect((plain[1].content as { type: string }[]).map((part) => part.type)).toEqual(["tool-call"]);
  });
});

describe("the loop's module graph", () => {
  it("makes this file's database client fail to load (so the mock above is a real check)", async () => {
    await expect(import("@/lib/db/queries/runs")).rejects.toThrow();
  });
});

describe("the agent loop planning first", () => {
  const planned = { steps: [{ title: "Add them" }, { title: "Answer" }] };

  it("offers plan alone in the first step and requires it, then update_plan beside the run's tools", async () => {
    const model = modelReplying(
      reply(toolCall("p", "plan", { steps: [] }), finish("tool-calls")),
      reply(toolCall("p2", "plan", planned), finish("tool-calls")),
      reply(toolCall("u", "update_plan", { updates: [{ id: "p1", status: "done" }] }), finish("tool-calls")),
      reply(text("4."), finish()),
    );
    const tools = new FakeToolset({ calculate: {} });
    const { outcome, events } = await run({ model, tools, plan: new RunPlan(true) });

    expect(outcome).toEqual({ status: "completed", steps: 4, answer: "4." });
    const [bad, planning, following] = model.doStreamCalls;
    // A plan that breaks the schema is an observation, and the planning step comes again.
    for (const request of [bad, planning]) {
      expect(request.tools?.map((offered) => offered.name)).toEqual(["plan"]);
      expect(request.toolChoice).toEqual({ type: "tool", toolName: "plan" });
      expect(request.prompt[0]).toEqual({ role: "system", content: SYSTEM_PROMPT + PLANNING_INSTRUCTION });
    }
    expect(following.tools?.map((offered) => offered.name)).toEqual(["calculate", "update_plan"]);
    expect(following.toolChoice).toEqual({ type: "auto" });
    expect(following.prompt[0]).toEqual({ role: "system", content: SYSTEM_PROMPT });
    expect(
      events
        .filter((event) => event.type.startsWith("plan_"))
        .map((event) => [event.type, "step" in event && event.step]),
    ).toEqual([
      ["plan_created", 2],
      ["plan_updated", 3],
    ]);
    expect(events.find((event) => event.type === "tool_result" && event.callId === "p")).toMatchObject({
      ok: false,
      error: expect.stringContaining("Invalid input for plan: steps"),
    });
    // The loop answers the plan's calls itself: the run's tools never see them.
    expect(tools.calls).toEqual([]);
  });

  it("says it in the request, without tool choice, for a model that refuses one", async () => {
    const model = modelReplying(
      reply(toolCall("p", "plan", planned), finish("tool-calls")),
      reply(text("4."), finish()),
    );
    await run({ model, tools: new FakeToolset({}), plan: new RunPlan(true), refusesToolChoice: true });
    expect(model.doStreamCalls[0].toolChoice).toEqual({ type: "auto" });
    expect(model.doStreamCalls[0].prompt[0]).toEqual({ role: "system", content: SYSTEM_PROMPT + PLANNING_INSTRUCTION });
  });

  it("counts the planning step against the step ceiling", async () => {
    const model = modelReplying(reply(toolCall("p", "plan", planned), finish("tool-calls")));
    const { outcome } = await run({ model, tools: new FakeToolset({}), plan: new RunPlan(true), maxSteps: 1 });
    expect(outcome).toMatchObject({ status: "max_steps", steps: 1 });
  });
});
