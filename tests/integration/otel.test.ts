import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { OtlpReceiver, otlpJsonSpans, type ReceivedSpan } from "../support/otlp-receiver";
import type { SseMessage } from "../support/sse";

/*
 * A run through the real app, exported to a real OTLP/HTTP receiver by the OpenTelemetry exporter: protobuf with
 * message content left out, JSON with it captured. The receiver decodes what it gets and the tests check the span
 * tree, its names, attributes, parentage, errors and times against the run's own events; then the run's download.
 */

const PROMPT = "Plan, then call a tool that does not exist.";
const THOUGHT = "Call missing_tool and report.";
const ANSWER = "The tool does not exist; done.";
const CONTENT_KEYS = [
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
];

const model = new ModelServer();
const protobufReceiver = new OtlpReceiver();
const jsonReceiver = new OtlpReceiver();
let withoutContent: AppServer;
let withContent: AppServer;

beforeAll(async () => {
  await Promise.all([model.start(), protobufReceiver.start(), jsonReceiver.start()]);
  model.script(PROMPT, [
    {
      reasoning: "A plan first.",
      toolCalls: [
        { name: "think", args: { thought: THOUGHT } },
        { name: "missing_tool", args: { n: 1 } },
      ],
    },
    { text: ANSWER },
  ]);
  withoutContent = scriptedApp(model.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: protobufReceiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20dG9vbHNtaXRoOnRlc3Q=",
    OTEL_SERVICE_NAME: "toolsmith-test",
  });
  withContent = scriptedApp(model.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: jsonReceiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
  });
  await Promise.all([withoutContent.start(), withContent.start()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([withoutContent?.stop(), withContent?.stop()]);
  await Promise.all([model.stop(), protobufReceiver.stop(), jsonReceiver.stop()]);
});

/** Run PROMPT in a new conversation, and wait for the receiver to have its five spans. */
async function exportedRun(app: AppServer, receiver: OtlpReceiver) {
  const api = new Api(app.url);
  const conversation = await api.createConversation();
  const events = await api.run(conversation.id, PROMPT);
  const runId = events[0].data.runId;
  const ofRun = () => {
    const root = receiver.spans().find((span) => span.attributes["toolsmith.run.id"] === runId);
    return receiver.spans().filter((span) => span.traceId === root?.traceId);
  };
  await expect.poll(() => ofRun().length, { timeout: 10_000 }).toBe(5);
  return { api, conversationId: conversation.id, runId, events, spans: ofRun() };
}

const ns = (ms: unknown) => BigInt(ms as number) * 1_000_000n;
const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

/** The tree every export of the run has: names, parentage, attributes, errors and times, from its events. */
function expectRunTree(spans: ReceivedSpan[], events: SseMessage[], conversationId: string) {
  const [started] = ofType(events, "run_started");
  const [finished] = ofType(events, "run_finished");
  const steps = ofType(events, "step_started");
  const stepEnds = ofType(events, "step_finished");
  const calls = ofType(events, "tool_call");
  const results = ofType(events, "tool_result");

  const [root] = named(spans, "invoke_agent default");
  expect(root).toMatchObject({
    kind: 1,
    startTimeUnixNano: ns(started.at),
    endTimeUnixNano: ns(finished.at),
    status: { code: 0 },
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "default",
      "gen_ai.provider.name": "openai_compatible",
      "gen_ai.conversation.id": conversationId,
      "gen_ai.request.model": "scripted-model",
      "toolsmith.run.status": "completed",
    },
  });
  expect(root.parentSpanId).toBeUndefined();
  expect(spans.every((span) => span === root || span.parentSpanId === root.spanId)).toBe(true);
  expect(spans.every((span) => span.traceId === root.traceId)).toBe(true);

  const chats = named(spans, "chat scripted-model").sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano));
  expect(chats).toHaveLength(2);
  chats.forEach((chat, index) => {
    expect(chat).toMatchObject({
      kind: 3,
      startTimeUnixNano: ns(steps[index].at),
      endTimeUnixNano: ns((stepEnds[index].model as { lastByteAt: number }).lastByteAt),
      status: { code: 0 },
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai_compatible",
        "gen_ai.request.model": "scripted-model",
        "gen_ai.response.model": "scripted-model",
        "gen_ai.usage.input_tokens": 10,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": [index === 0 ? "tool_calls" : "stop"],
        "gen_ai.conversation.id": conversationId,
        "server.address": "127.0.0.1",
      },
    });
  });

  const [think] = named(spans, "execute_tool think");
  const [missing] = named(spans, "execute_tool missing_tool");
  for (const [span, name] of [
    [think, "think"],
    [missing, "missing_tool"],
  ] as const) {
    const call = calls.find((event) => event.name === name)!;
    const result = results.find((event) => event.callId === call.callId)!;
    expect(span).toMatchObject({
      kind: 1,
      startTimeUnixNano: ns(result.startedAt),
      endTimeUnixNano: ns(result.at),
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call.callId,
        "gen_ai.tool.type": "function",
      },
    });
    // Within its step: after the model asked for it, before the next model call.
    expect(span.startTimeUnixNano).toBeGreaterThanOrEqual(chats[0].endTimeUnixNano);
    expect(span.endTimeUnixNano).toBeLessThanOrEqual(chats[1].startTimeUnixNano);
  }
  expect(think.status).toEqual({ code: 0 });
  expect(think.attributes).not.toHaveProperty("error.type");
  expect(missing.status).toEqual({ code: 2, message: results.find((event) => !event.ok)!.error });
  expect(missing.status.message).toContain("missing_tool");
  expect(missing.attributes["error.type"]).toBe("_OTHER");
}

describe("OpenTelemetry export of a finished run", () => {
  it("sends the span tree over OTLP/HTTP protobuf, without message content, with the configured headers and service name", async () => {
    const { events, spans, conversationId } = await exportedRun(withoutContent, protobufReceiver);
    expectRunTree(spans, events, conversationId);
    for (const span of spans) for (const key of CONTENT_KEYS) expect(span.attributes).not.toHaveProperty(key);

    const request = protobufReceiver.requests.find((received) => received.spans.includes(spans[0]))!;
    expect(request.contentType).toBe("application/x-protobuf");
    expect(request.headers.authorization).toBe("Basic dG9vbHNtaXRoOnRlc3Q=");
    expect(request.resource).toMatchObject({ "service.name": "toolsmith-test", "telemetry.sdk.language": "nodejs" });
    expect(request.scope).toBe("toolsmith");
  });

  it("sends it over OTLP/HTTP JSON with the messages and the tools' arguments and results when content capture is on", async () => {
    const { events, spans, conversationId } = await exportedRun(withContent, jsonReceiver);
    expectRunTree(spans, events, conversationId);
    expect(jsonReceiver.requests[0].contentType).toBe("application/json");
    expect(jsonReceiver.requests[0].resource).toMatchObject({ "service.name": "toolsmith" });

    const json = (span: ReceivedSpan, key: string) => JSON.parse(span.attributes[key] as string);
    const calls = ofType(events, "tool_call");
    const callId = (name: string) => calls.find((call) => call.name === name)!.callId;
    const [first, second] = named(spans, "chat scripted-model").sort((a, b) =>
      Number(a.startTimeUnixNano - b.startTimeUnixNano),
    );
    const user = { role: "user", parts: [{ type: "text", content: PROMPT }] };
    const asked = {
      role: "assistant",
      parts: [
        { type: "reasoning", content: "A plan first." },
        { type: "tool_call", id: callId("think"), name: "think", arguments: { thought: THOUGHT } },
        { type: "tool_call", id: callId("missing_tool"), name: "missing_tool", arguments: { n: 1 } },
      ],
    };
    expect(json(first, "gen_ai.input.messages")).toEqual([user]);
    expect(json(first, "gen_ai.output.messages")).toEqual([{ ...asked, finish_reason: "tool_call" }]);
    expect(json(second, "gen_ai.input.messages")).toEqual([
      user,
      asked,
      {
        role: "tool",
        parts: [
          { type: "tool_call_response", id: callId("think"), response: expect.anything() },
          { type: "tool_call_response", id: callId("missing_tool"), response: { error: expect.any(String) } },
        ],
      },
    ]);
    expect(json(second, "gen_ai.output.messages")).toEqual([
      { role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" },
    ]);

    const [think] = named(spans, "execute_tool think");
    const [missing] = named(spans, "execute_tool missing_tool");
    expect(json(think, "gen_ai.tool.call.arguments")).toEqual({ thought: THOUGHT });
    expect(think.attributes["gen_ai.tool.call.result"]).toEqual(expect.any(String));
    expect(json(missing, "gen_ai.tool.call.arguments")).toEqual({ n: 1 });
    expect(missing.attributes).not.toHaveProperty("gen_ai.tool.call.result");

    const [root] = named(spans, "invoke_agent default");
    expect(json(root, "gen_ai.input.messages")).toEqual([user]);
    expect(json(root, "gen_ai.output.messages")).toEqual([
      { role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" },
    ]);
  });

  it("downloads the run as the same OTLP JSON trace, to its owner only", async () => {
    const { api, conversationId, runId, events, spans } = await exportedRun(withoutContent, protobufReceiver);
    const response = await api.fetch(`/api/conversations/${conversationId}/runs/${runId}/otlp`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="run-${runId}.otlp.json"`);
    const downloaded = otlpJsonSpans(await response.json());
    expectRunTree(downloaded, events, conversationId);
    // The same trace the exporter sent: same ids, names, times, attributes and statuses.
    const bySpanId = (list: ReceivedSpan[]) => [...list].sort((a, b) => a.spanId.localeCompare(b.spanId));
    expect(bySpanId(downloaded)).toEqual(bySpanId(spans));

    const other = await api.createConversation();
    const stranger = new Api(withoutContent.url);
    for (const [who, client, path] of [
      ["another identity", stranger, `/api/conversations/${conversationId}/runs/${runId}/otlp`],
      ["an unknown run", api, `/api/conversations/${conversationId}/runs/no-such-run/otlp`],
      ["a run of another conversation", api, `/api/conversations/${other.id}/runs/${runId}/otlp`],
    ] as const) {
      const refused = await client.fetch(path);
      expect(refused.status, who).toBe(404);
      expect(await refused.json(), who).toMatchObject({ error: { code: "not_found" } });
    }
  });
});
