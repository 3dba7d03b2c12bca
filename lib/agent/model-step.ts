import {
  APICallError,
  experimental_streamLanguageModelCall as streamModelCall,
  StreamProviderError,
  TypeValidationError,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from "ai";
import type { AgentEvent } from "@/lib/contract/events";
import { retry, type Backoff } from "@/lib/platform/retry";
import { ReasoningBlocks, type SignedReasoning } from "./history";

export interface ModelCall {
  callId: string;
  name: string;
  input: unknown;
  /** Set when the call cannot be made as sent (arguments that are not JSON). */
  problem?: string;
}

export interface StepPlan {
  text: string;
  calls: ModelCall[];
  /** Reasoning the server signed, which goes back to it with the step's calls (history.ts). */
  reasoning: SignedReasoning[];
  finishReason: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** When the answer's first and last parts arrived, on the instances' shared clock. */
  timing?: { firstByteAt: number; lastByteAt: number };
}

type ModelCallOptions = Parameters<typeof streamModelCall>[0];

export interface StepRequest {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  step: number;
  maxRetries: number;
  idle: IdleTimeout;
  emit: (event: AgentEvent) => void;
  signal: AbortSignal;
  /** For an answer of a given shape (lib/agent/tool-writer.ts): a JSON-schema output, or a call of one tool. */
  output?: ModelCallOptions["output"];
  toolChoice?: ModelCallOptions["toolChoice"];
  providerOptions?: ModelCallOptions["providerOptions"];
  /** The clock of the answer's timing: epoch ms (the run's is the one the instances share). */
  now?: () => number;
}

/** The wait before a model request is sent again: half a second, doubling. */
const MODEL_BACKOFF: Backoff = { initialMs: 500, factor: 2 };

/** Finish reasons that mean the answer is not whole: a server error, or a stream that stopped without finishing. */
const BROKEN_FINISH = new Set(["error", "interrupted"]);

/**
 * One model call, streamed. The loop drives steps itself, so this is the SDK's single-call primitive rather than
 * streamText's step machinery: less per-chunk work on the streaming hot path. Retries of a failed request and the
 * idle timeout are handled here; every way the call can fail becomes a ModelFailure with a readable message.
 */
export async function streamStep({
  model,
  system,
  messages,
  tools,
  step,
  maxRetries,
  idle,
  emit,
  signal,
  output,
  toolChoice,
  providerOptions,
  now = Date.now,
}: StepRequest): Promise<StepPlan> {
  const abortSignal = idle.arm(signal);
  try {
    // A request that failed before streaming began is sent again when the error says that may help (429, 5xx,
    // network); a cancel during the wait ends it at once.
    const call = () =>
      streamModelCall({ model, system, messages, tools, output, toolChoice, providerOptions, abortSignal });
    const { stream } = await retry(call, {
      backoff: MODEL_BACKOFF,
      attempts: maxRetries + 1,
      retryable: (error) => APICallError.isInstance(error) && error.isRetryable,
      signal,
    });
    const reasoning = new ReasoningBlocks();
    const plan: StepPlan = { text: "", calls: [], reasoning: reasoning.blocks, finishReason: "unknown" };
    const say = (event: AgentEvent) => {
      reasoning.observe(event);
      emit(event);
    };
    let firstByteAt: number | undefined;
    for await (const part of stream) {
      firstByteAt ??= now();
      switch (part.type) {
        case "reasoning-start": {
          // Claude's redacted thinking arrives whole, encrypted, as the block's start.
          const redacted = anthropicMetadata(part.providerMetadata, "redactedData");
          if (redacted !== undefined) say({ type: "reasoning_delta", step, delta: "", redacted });
          break;
        }
        case "reasoning-delta": {
          // Claude's signature_delta: an empty delta that closes the thinking block and signs it.
          const signature = anthropicMetadata(part.providerMetadata, "signature");
          if (part.text || signature !== undefined) {
            say({ type: "reasoning_delta", step, delta: part.text, ...(signature !== undefined && { signature }) });
          }
          break;
        }
        case "text-delta":
          if (!part.text) break;
          plan.text += part.text;
          say({ type: "text_delta", step, delta: part.text });
          break;
        case "tool-call":
          plan.calls.push({
            callId: part.toolCallId,
            name: part.toolName,
            input: part.input,
            // An unknown name is the toolset's to explain; unparsable arguments arrive as the raw string.
            problem:
              part.invalid && typeof part.input === "string"
                ? `The arguments for ${part.toolName} are not valid JSON: ${part.input.slice(0, 200)}`
                : undefined,
          });
          break;
        case "model-call-end":
          // Chat Completions reports OpenRouter's in-stream `finish_reason: "error"` as "other", raw "error".
          plan.finishReason = part.rawFinishReason === "error" ? "error" : part.finishReason;
          plan.usage = { inputTokens: part.usage.inputTokens, outputTokens: part.usage.outputTokens };
          break;
        case "error":
          throw part.error;
      }
    }
    if (plan.finishReason === "unknown" || BROKEN_FINISH.has(plan.finishReason)) {
      throw new Error("The model stream ended before the model finished its answer.");
    }
    const lastByteAt = now();
    return { ...plan, timing: { firstByteAt: firstByteAt ?? lastByteAt, lastByteAt } };
  } catch (error) {
    throw new ModelFailure(idle.timedOut ? new Error(`The model sent nothing for ${idle.ms} ms.`) : error);
  } finally {
    idle.disarm();
  }
}

function anthropicMetadata(metadata: unknown, key: "signature" | "redactedData"): string | undefined {
  const value = (metadata as { anthropic?: Record<string, unknown> } | undefined)?.anthropic?.[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * The model's silence limit. One per run: the model's fetch calls `reset` on every byte it receives, SSE comments
 * and keep-alives included, so a model that thinks for minutes without a visible token is not cut off. Armed
 * only while a model call is in flight.
 */
export class IdleTimeout {
  private controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private parent: AbortSignal | undefined;
  private readonly onParentAbort = () => this.controller.abort(this.parent?.reason);
  timedOut = false;

  constructor(readonly ms: number) {}

  /** Start the clock for one call; the returned signal aborts on silence or when `parent` aborts. */
  arm(parent: AbortSignal): AbortSignal {
    this.controller = new AbortController();
    this.timedOut = false;
    this.parent = parent;
    parent.addEventListener("abort", this.onParentAbort, { once: true });
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error("idle timeout"));
    }, this.ms);
    return this.controller.signal;
  }

  reset(): void {
    this.timer?.refresh();
  }

  /** Stop the clock and let go of the run's signal, which outlives every call. */
  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.parent?.removeEventListener("abort", this.onParentAbort);
  }
}

/** Anything that went wrong while asking the model: HTTP errors, a dropped, broken or silent stream. */
export class ModelFailure extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }

  /** What the person is shown: the server's own reason where it gave one, never HTML, a stack or a schema dump. */
  describe(): { code: string; message: string } {
    const { reason } = this;
    if (APICallError.isInstance(reason)) {
      const said = serverMessage(reason.responseBody) ?? reason.message;
      return {
        code: "model_http_error",
        message: `The model server answered ${reason.statusCode ?? "with an error"}: ${said}`,
      };
    }
    if (StreamProviderError.isInstance(reason)) {
      // An error the server sent inside a stream that had begun (Anthropic's `event: error`, overloaded_error say):
      // not retried, since what streamed before it is already in the trace.
      const kind = reason.type ?? reason.statusCode ?? "error";
      return {
        code: "model_error",
        message:
          `The model server stopped its answer with an error (${kind}): ${printable(reason.message)}. ` +
          "Send the message again to retry.",
      };
    }
    if (TypeValidationError.isInstance(reason)) {
      return {
        code: "model_error",
        message:
          "The model server sent a stream chunk this client cannot read. If it is not OpenAI, set " +
          "TOOLSMITH_MODEL_API=compatible, which accepts the variants local servers send.",
      };
    }
    return { code: "model_error", message: `The model request failed: ${printable(this.message)}` };
  }
}

const MAX_SERVER_MESSAGE = 500;

/**
 * The reason in an error body, in each dialect servers use: OpenAI's `{error: {message}}`, vLLM's flat
 * `{object: "error", message}`, LM Studio's `{error: "..."}`, FastAPI's `{detail}`. Anything else (HTML, empty) says
 * nothing.
 */
export function serverMessage(body: string | undefined): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? "");
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object") return undefined;
  const { error, message, detail } = parsed as { error?: unknown; message?: unknown; detail?: unknown };
  const candidate = [(error as { message?: unknown } | undefined)?.message, error, message, detail].find(
    (value) => typeof value === "string" && value.trim(),
  );
  return candidate === undefined ? undefined : printable(candidate as string);
}

function printable(text: string): string {
  const clean = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").trim();
  return clean.length > MAX_SERVER_MESSAGE ? `${clean.slice(0, MAX_SERVER_MESSAGE - 1)}…` : clean;
}
