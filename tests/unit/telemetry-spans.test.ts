import { describe, expect, it } from "vitest";
import type { AgentEvent } from "@/lib/contract/events";
import { otlpJson } from "@/lib/telemetry/export";
import { modelProvider, PLAN_ATTRIBUTE_CHARS, runSpans, type PlanChange, type RunContext } from "@/lib/telemetry/spans";
import { applyEvents, emptyTrace, type TraceEvent } from "@/lib/trace/state";

/** 2020-01-01T00:00:00Z: long before this process started, as any run is that is downloaded later. */
const T0 = 1_577_836_800_000;

/** A run from its events, each stamped `at` ms after T0 (in order when not given). */
function runOf(events: (AgentEvent & { at?: number })[]) {
  const logged = events.map(
    (event, index) => ({ runId: "r1", id: index + 1, ...event, at: T0 + (event.at ?? index * 10) }) as TraceEvent,
  );
  return applyEvents(emptyTrace, logged).runs[0];
}

const context: RunContext = {
  conversationId: "c1",
  provider: { name: "openai", serverAddress: "api.openai.com", serverPort: 443 },
  captureContent: false,
};

describe("a run's spans", () => {
  it("end a model call with its last byte; in logs without it, with the step's first tool call, else its end", () => {
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt", profile: "researcher", at: 0 },
      { type: "step_started", step: 1, at: 10 },
      { type: "tool_call", step: 1, callId: "a", name: "calculate", input: {}, at: 40 },
      { type: "tool_result", step: 1, callId: "a", name: "calculate", ok: true, output: 2, durationMs: 5, at: 45 },
      { type: "step_finished", step: 1, finishReason: "tool-calls", at: 50 },
      { type: "step_started", step: 2, at: 60 },
      {
        type: "step_finished",
        step: 2,
        finishReason: "stop",
        model: { firstByteAt: T0 + 70, lastByteAt: T0 + 90 },
        at: 95,
      },
      { type: "step_started", step: 3, at: 100 },
      { type: "step_finished", step: 3, finishReason: "stop", at: 120 },
      { type: "run_finished", status: "completed", steps: 3, at: 130 },
    ]);
    const spans = runSpans(run, context);
    expect(spans.map((span) => [span.name, span.startTime - T0, span.endTime - T0])).toEqual([
      ["invoke_agent researcher", 0, 130],
      ["chat gpt", 10, 40],
      // An older log: the call began at its tool_call, as the model's answer ended.
      ["execute_tool calculate", 40, 45],
      ["chat gpt", 60, 90],
      ["chat gpt", 100, 120],
    ]);
    expect(spans[3].attributes["gen_ai.response.time_to_first_chunk"]).toBeCloseTo(0.01);
    expect(spans[1].attributes["gen_ai.response.finish_reasons"]).toEqual(["tool_calls"]);
  });

  it("mark a run that failed, its model call that never answered, and a call it left running", () => {
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt" },
      { type: "step_started", step: 1 },
      { type: "tool_call", step: 1, callId: "a", name: "fetch_url", input: {} },
      { type: "step_started", step: 2 },
      { type: "error", code: "model_error", message: "The model server answered 500." },
      { type: "run_finished", status: "error", steps: 2 },
    ]);
    const [root, chat, call, failedChat] = runSpans(run, context);
    expect(root).toMatchObject({ name: "invoke_agent toolsmith", error: { type: "model_error" } });
    expect(root.attributes).toMatchObject({ "toolsmith.run.status": "error", "gen_ai.agent.name": "toolsmith" });
    expect(chat.error).toBeDefined();
    expect(call).toMatchObject({ endTime: T0 + 50, error: { type: "model_error" } });
    expect(failedChat).toMatchObject({
      endTime: T0 + 50,
      error: { type: "model_error", message: "The model server answered 500." },
    });
    expect(failedChat.attributes).not.toHaveProperty("gen_ai.response.model");
  });

  it("of a run still going end at its last event, with no error", () => {
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt" },
      { type: "step_started", step: 1 },
      { type: "tool_call", step: 1, callId: "a", name: "think", input: { thought: "x" } },
    ]);
    const spans = runSpans(run, context);
    expect(spans.map((span) => [span.endTime - T0, span.error])).toEqual([
      [20, undefined],
      [20, undefined],
      [20, undefined],
    ]);
  });

  it("say the language of a stored tool a call ran, and none for a built-in", () => {
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt" },
      { type: "step_started", step: 1 },
      { type: "tool_call", step: 1, callId: "py", name: "mean", input: {} },
      { type: "tool_call", step: 1, callId: "b", name: "calculate", input: {} },
      { type: "tool_result", step: 1, callId: "py", name: "mean", ok: true, output: 2, durationMs: 5 },
      { type: "tool_result", step: 1, callId: "b", name: "calculate", ok: true, output: 2, durationMs: 5 },
      { type: "step_finished", step: 1, finishReason: "tool-calls" },
      { type: "run_finished", status: "completed", steps: 1 },
    ]);
    const spans = runSpans(run, { ...context, toolLanguages: new Map([["py", "python"]]) });
    const language = (name: string) =>
      spans.find((span) => span.name === `execute_tool ${name}`)!.attributes["toolsmith.tool.language"];
    expect(language("mean")).toBe("python");
    expect(language("calculate")).toBeUndefined();
  });

  it("give the run's span a span event per plan_created and plan_updated, at its time, the plan's JSON bounded and only with content captured", () => {
    const item = (id: string, status: "pending" | "done", title = "Read the CSV") => ({ id, title, status });
    const created: PlanChange = {
      type: "plan_created",
      step: 1,
      callId: "p",
      plan: { steps: [item("p1", "pending"), item("p2", "pending")] },
      at: T0 + 15,
    };
    const long = "x".repeat(PLAN_ATTRIBUTE_CHARS);
    const updated: PlanChange = {
      type: "plan_updated",
      step: 2,
      callId: "u",
      plan: { steps: [item("p1", "done"), item("p2", "pending", long)] },
      at: T0 + 25,
    };
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt", plan: true },
      { type: "step_started", step: 1 },
      { type: "step_finished", step: 1, finishReason: "tool-calls" },
      { type: "run_finished", status: "completed", steps: 1 },
    ]);
    const [root, chat] = runSpans(run, { ...context, captureContent: true, planChanges: [created, updated] });
    expect(chat.events).toBeUndefined();
    expect(
      root.events?.map(({ name, time, attributes }) => [name, time - T0, attributes["toolsmith.plan.done"]]),
    ).toEqual([
      ["plan_created", 15, 0],
      ["plan_updated", 25, 1],
    ]);
    expect(root.events?.[0].attributes).toMatchObject({ "toolsmith.step": 1, "toolsmith.plan.steps": 2 });
    expect(JSON.parse(root.events?.[0].attributes["toolsmith.plan"] as string)).toEqual(created.plan);
    expect(root.events?.[1].attributes["toolsmith.plan"]).toHaveLength(PLAN_ATTRIBUTE_CHARS);
    expect(runSpans(run, context)[0].events).toBeUndefined();
    // Without content: the counts, never the titles.
    const [uncaptured] = runSpans(run, { ...context, planChanges: [created] });
    expect(uncaptured.events?.[0].attributes).toEqual({
      "toolsmith.step": 1,
      "toolsmith.plan.steps": 2,
      "toolsmith.plan.done": 0,
    });
  });

  it("name the provider: OpenAI's dialects, a well-known API host, else a compatible server", () => {
    const model = { model: "m", maxRetries: 0 };
    expect(modelProvider({ ...model, api: "chat" })).toEqual({
      name: "openai",
      serverAddress: "api.openai.com",
      serverPort: 443,
    });
    expect(modelProvider({ ...model, api: "compatible", baseURL: "https://api.deepseek.com/v1" }).name).toBe(
      "deepseek",
    );
    expect(modelProvider({ ...model, api: "compatible", baseURL: "http://localhost:11434/v1" })).toEqual({
      name: "openai_compatible",
      serverAddress: "localhost",
      serverPort: 11434,
    });
    expect(modelProvider({ ...model, api: "responses", baseURL: "https://proxy.example.com/v1" }).name).toBe("openai");
  });
});

describe("a run as OTLP JSON", () => {
  it("keeps the times of a run older than the process, and the same ids each time", async () => {
    const run = runOf([
      { type: "run_started", messageId: "m1", model: "gpt", at: 0 },
      { type: "step_started", step: 1, at: 1 },
      { type: "step_finished", step: 1, finishReason: "stop", at: 2 },
      { type: "run_finished", status: "completed", steps: 1, at: 3 },
    ]);
    const first = JSON.parse(await otlpJson("r1", runSpans(run, context)));
    const spans = first.resourceSpans[0].scopeSpans[0].spans;
    expect(spans.map((span: { startTimeUnixNano: string }) => span.startTimeUnixNano).sort()).toEqual([
      `${T0}000000`,
      `${T0 + 1}000000`,
    ]);
    expect(await otlpJson("r1", runSpans(run, context))).toBe(JSON.stringify(first));
    const other = JSON.parse(await otlpJson("r2", runSpans(run, context)));
    expect(other.resourceSpans[0].scopeSpans[0].spans[0].traceId).not.toBe(spans[0].traceId);
  });
});
