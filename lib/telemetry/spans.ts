import { ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ERROR_TYPE_VALUE_OTHER } from "@opentelemetry/semantic-conventions";
import { toolSpanKey } from "@/lib/platform/trace-ids";
import type { ModelConfig } from "@/lib/settings/config";
import type { AgentEvent } from "@/lib/contract/events";
import type { RunView, StepView, ToolCallView } from "@/lib/trace/state";

/*
 * A finished run as OpenTelemetry spans, after the GenAI semantic conventions (open-telemetry/semantic-conventions-
 * genai, v0.1.0): an `invoke_agent {agent}` span for the run, a `chat {model}` span per model call and an
 * `execute_tool {tool}` span per tool call under it, at the times the run's events recorded. Pure: export.ts turns
 * the descriptions into the SDK's spans.
 */

export type AttributeValue = string | number | boolean | string[];

export interface SpanDescription {
  /** Stable within the run ("run", "step:<eventId>", "call:<step>:<callId>"): parentage, and the span's id. */
  key: string;
  parent?: string;
  name: string;
  kind: "internal" | "client";
  /** Epoch ms on the instances' shared clock. */
  startTime: number;
  endTime: number;
  attributes: Record<string, AttributeValue>;
  /** Set when the operation failed: `error.type` and the span's status message. */
  error?: { type: string; message?: string };
  /** Span events, at their own times. */
  events?: SpanEventDescription[];
}

export interface SpanEventDescription {
  name: string;
  /** Epoch ms, as the span's times. */
  time: number;
  attributes: Record<string, AttributeValue>;
}

/** A plan written or changed in the run, as its log has it. */
export type PlanChange = Extract<AgentEvent, { type: "plan_created" | "plan_updated" }> & { at: number };

/** Who answered the model calls, as the conventions name it, and where. */
export interface ModelProvider {
  name: string;
  serverAddress?: string;
  serverPort?: number;
}

export interface RunContext {
  conversationId: string;
  provider: ModelProvider;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: what was said and done goes into the spans. */
  captureContent: boolean;
  /** The user's message that started the run; read only when content is captured. */
  userMessage?: string;
  /** The language of the stored tool each call ran, by call id; built-ins have none. */
  toolLanguages?: ReadonlyMap<string, string>;
  /** A plan-first run's plan_created and plan_updated, in order: span events of the run's span. */
  planChanges?: PlanChange[];
}

/** A plan's JSON in a span event is cut to this many characters: a backend's attribute limits are often about 4 KiB. */
export const PLAN_ATTRIBUTE_CHARS = 4_000;

const AGENT = "toolsmith";

/** Well-known `gen_ai.provider.name` values by the API host a compatible server is reached at. */
const PROVIDERS_BY_HOST: Record<string, string> = {
  "api.openai.com": "openai",
  "api.deepseek.com": "deepseek",
  "api.groq.com": "groq",
  "api.mistral.ai": "mistral_ai",
  "api.x.ai": "x_ai",
  "api.perplexity.ai": "perplexity",
  "api.moonshot.ai": "moonshot_ai",
  "generativelanguage.googleapis.com": "gcp.gemini",
};

/**
 * The provider of the configured model: a well-known name when its base URL is that provider's API, `openai` for
 * OpenAI's dialects, and for any other compatible server a custom value, as the conventions allow.
 */
export function modelProvider(model: ModelConfig | undefined): ModelProvider {
  const anthropic = model?.api === "anthropic";
  const url = new URL(model?.baseURL ?? (anthropic ? "https://api.anthropic.com/v1" : "https://api.openai.com/v1"));
  const name = anthropic
    ? "anthropic"
    : (PROVIDERS_BY_HOST[url.hostname] ?? (model?.api === "compatible" ? "openai_compatible" : "openai"));
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { name, serverAddress: url.hostname, serverPort: port };
}

/** The run's spans, the run's own first; spans of a run still going end at the last moment its events tell. */
export function runSpans(run: RunView, context: RunContext): SpanDescription[] {
  const end = run.endedAt ?? lastMoment(run);
  const agent = run.profile ?? AGENT;
  const common = { "gen_ai.provider.name": context.provider.name, "gen_ai.conversation.id": context.conversationId };
  const root: SpanDescription = {
    key: "run",
    name: `invoke_agent ${agent}`,
    kind: "internal",
    startTime: run.startedAt,
    endTime: end,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      ...common,
      "gen_ai.agent.name": agent,
      ...(run.model && { "gen_ai.request.model": run.model }),
      "toolsmith.run.id": run.runId,
      "toolsmith.run.status": run.status,
      ...(context.captureContent && {
        ...(context.userMessage !== undefined && {
          "gen_ai.input.messages": json([textMessage("user", context.userMessage)]),
        }),
        ...(run.status === "completed" && {
          "gen_ai.output.messages": json([
            { ...textMessage("assistant", run.steps.findLast((step) => step.text)?.text ?? ""), finish_reason: "stop" },
          ]),
        }),
      }),
    },
    error:
      run.status === "error"
        ? { type: run.error?.code ?? ERROR_TYPE_VALUE_OTHER, message: run.error?.message }
        : undefined,
    ...(context.planChanges?.length && {
      events: context.planChanges.map((change) => planEvent(change, context.captureContent)),
    }),
  };
  const unfinished = run.status === "running" ? undefined : (run.error?.code ?? run.status);
  return [
    root,
    ...run.steps.flatMap((step, index) => [
      chatSpan(run, step, index, { common, context, end, unfinished }),
      ...step.calls.flatMap((call) => toolSpans(call, step.step, "run", { common, context, end, unfinished })),
    ]),
  ];
}

interface SpanScope {
  common: Record<string, AttributeValue>;
  context: RunContext;
  /** When the run ended, or the last moment known of a run still going. */
  end: number;
  /** Why an operation the run left without an end did not end: the run's error code, or its status. */
  unfinished?: string;
}

function chatSpan(run: RunView, step: StepView, index: number, scope: SpanScope): SpanDescription {
  const model = run.model ?? "unknown";
  const { provider, captureContent } = scope.context;
  // The model call ends with its answer's last byte; logs older than that have only the step's first tool call or
  // its end to go by.
  const endTime = step.model?.lastByteAt ?? step.calls[0]?.startedAt ?? step.endedAt ?? scope.end;
  const answered = step.finishReason !== undefined;
  return {
    key: `step:${step.eventId}`,
    parent: "run",
    name: `chat ${model}`,
    kind: "client",
    startTime: step.startedAt,
    endTime,
    attributes: {
      "gen_ai.operation.name": "chat",
      ...scope.common,
      "gen_ai.request.model": model,
      "gen_ai.request.stream": true,
      ...(provider.serverAddress && {
        [ATTR_SERVER_ADDRESS]: provider.serverAddress,
        [ATTR_SERVER_PORT]: provider.serverPort!,
      }),
      ...(answered && { "gen_ai.response.model": model }),
      ...(step.finishReason && { "gen_ai.response.finish_reasons": [step.finishReason.replace("-", "_")] }),
      ...(step.model && { "gen_ai.response.time_to_first_chunk": (step.model.firstByteAt - step.startedAt) / 1000 }),
      ...(step.usage?.inputTokens !== undefined && { "gen_ai.usage.input_tokens": step.usage.inputTokens }),
      ...(step.usage?.outputTokens !== undefined && { "gen_ai.usage.output_tokens": step.usage.outputTokens }),
      "toolsmith.step": step.step,
      ...(captureContent && {
        "gen_ai.input.messages": json(inputMessages(run, index, scope.context.userMessage)),
        "gen_ai.output.messages": json([{ ...assistantMessage(step), finish_reason: outputFinish(step) }]),
      }),
    },
    error: answered || !scope.unfinished ? undefined : { type: scope.unfinished, message: run.error?.message },
  };
}

/** A call's span, and under it the spans of the calls its code made (tools.call). */
function toolSpans(call: ToolCallView, step: number, parent: string, scope: SpanScope): SpanDescription[] {
  const span = toolSpan(call, step, parent, scope);
  return [span, ...(call.nested ?? []).flatMap((inner) => toolSpans(inner, step, span.key, scope))];
}

function toolSpan(call: ToolCallView, step: number, parent: string, scope: SpanScope): SpanDescription {
  const { captureContent, toolLanguages } = scope.context;
  const language = toolLanguages?.get(call.callId);
  return {
    key: toolSpanKey(step, call.callId),
    parent,
    name: `execute_tool ${call.name}`,
    kind: "internal",
    startTime: call.startedAt,
    endTime: call.endedAt ?? scope.end,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      ...scope.common,
      "gen_ai.tool.name": call.name,
      "gen_ai.tool.call.id": call.callId,
      "gen_ai.tool.type": "function",
      ...(language && { "toolsmith.tool.language": language }),
      ...(call.server && { "toolsmith.mcp.server": call.server }),
      ...(captureContent && {
        "gen_ai.tool.call.arguments": json(call.input ?? {}),
        ...(call.status === "ok" && { "gen_ai.tool.call.result": content(call.output) }),
      }),
    },
    error: toolError(call, scope.unfinished),
  };
}

function toolError(call: ToolCallView, unfinished: string | undefined): SpanDescription["error"] {
  if (call.status === "error") {
    const type = call.rejected
      ? "tool_rejected"
      : call.approval?.state === "denied"
        ? "approval_denied"
        : ERROR_TYPE_VALUE_OTHER;
    return { type, message: call.error };
  }
  if (call.status === "running" && unfinished) return { type: unfinished };
  return undefined;
}

type Part =
  | { type: "text" | "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: unknown };
interface Message {
  role: "user" | "assistant" | "tool";
  parts: Part[];
}

const textMessage = (role: Message["role"], text: string): Message => ({
  role,
  parts: [{ type: "text", content: text }],
});

/** What the model said in a step: its reasoning, its text and the calls it asked for. */
function assistantMessage(step: StepView): Message {
  const parts: Part[] = [];
  if (step.reasoning) parts.push({ type: "reasoning", content: step.reasoning });
  if (step.text) parts.push({ type: "text", content: step.text });
  for (const call of step.calls)
    parts.push({ type: "tool_call", id: call.callId, name: call.name, arguments: call.input });
  return { role: "assistant", parts };
}

/**
 * What the model was sent for step `index`, as far as the run knows it: the user's message, then each earlier step's
 * answer and its calls' results. Earlier turns of the conversation and the system prompt are left out.
 */
function inputMessages(run: RunView, index: number, userMessage: string | undefined): Message[] {
  const messages: Message[] = userMessage === undefined ? [] : [textMessage("user", userMessage)];
  for (const step of run.steps.slice(0, index)) {
    messages.push(assistantMessage(step));
    if (step.calls.length === 0) continue;
    messages.push({
      role: "tool",
      parts: step.calls.map((call) => ({
        type: "tool_call_response",
        id: call.callId,
        response: call.status === "ok" ? call.output : { error: call.error },
      })),
    });
  }
  return messages;
}

/** The conventions' finish reasons for an output message; the model's own for any other. */
function outputFinish(step: StepView): string {
  const reason = step.finishReason ?? "error";
  return { "tool-calls": "tool_call", "content-filter": "content_filter" }[reason] ?? reason;
}

/** Structured values go as JSON text: span attributes hold only strings, numbers, booleans and their arrays. */
const json = (value: unknown): string => JSON.stringify(value);
const content = (value: unknown): string => (typeof value === "string" ? value : json(value ?? null));

/**
 * A plan_created or plan_updated as a span event: its size and progress, and with content captured the plan itself
 * (bounded): its titles are the model's words about the person's task, content like the messages.
 */
function planEvent({ type, at, step, plan }: PlanChange, captureContent: boolean): SpanEventDescription {
  const text = json(plan);
  return {
    name: type,
    time: at,
    attributes: {
      "toolsmith.step": step,
      "toolsmith.plan.steps": plan.steps.length,
      "toolsmith.plan.done": plan.steps.filter(({ status }) => status === "done").length,
      ...(captureContent && {
        "toolsmith.plan": text.length > PLAN_ATTRIBUTE_CHARS ? `${text.slice(0, PLAN_ATTRIBUTE_CHARS - 1)}…` : text,
      }),
    },
  };
}

/** The latest time a run's events tell, for a run that has not ended. */
function lastMoment(run: RunView): number {
  return Math.max(
    run.startedAt,
    ...run.steps.flatMap((step) => [
      step.startedAt,
      step.model?.lastByteAt ?? 0,
      step.endedAt ?? 0,
      ...step.calls.map((call) => call.endedAt ?? call.startedAt),
    ]),
  );
}
