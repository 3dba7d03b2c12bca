import { setTimeout as sleep } from "node:timers/promises";
import { APICallError, experimental_streamLanguageModelCall as streamModelCall, type LanguageModel, type ModelMessage } from "ai";
import { config, MODEL_SETUP_HINT, type ModelConfig } from "@/lib/config";
import { recordExecution } from "@/lib/db/executions";
import type { AgentEvent, RunStatus } from "@/lib/events/types";
import { loadToolset, type Toolset } from "@/lib/tools/toolset";
import type { ToolResult } from "@/lib/tools/types";
import { conversationHistory, stepMessages } from "./history";
import { languageModel } from "./model";

const SYSTEM_PROMPT = `You are Toolsmith, an agent that solves tasks with tools and builds the tools it lacks.
Work in steps: think briefly, call tools, read their results, and continue until you can answer.
- Use an existing tool when one fits. Use calculate for arithmetic and run_code to try JavaScript.
- When no tool fits, write one with register_tool: JavaScript defining function run(inputs) that returns a
  JSON-serialisable value. The tool is callable right after registration and in later turns. If it is rejected,
  read the violations, fix the code, and register it again.
- Tool errors are information: read them and adapt instead of repeating the same call.
- When you are done, answer without calling tools. Use Markdown.`;

type ToolCallEvent = Extract<AgentEvent, { type: "tool_call" }>;
type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;

export interface AgentRun {
  conversationId: string;
  runId: string;
  model: ModelConfig | undefined;
  emit: (event: AgentEvent) => void;
  /** Aborted when the run is cancelled: it reaches the model request, every tool call and their fetches. */
  signal: AbortSignal;
}

export interface AgentOutcome {
  status: RunStatus;
  steps: number;
  /** The last step's text: the answer, when the run completed. */
  answer: string;
}

/**
 * Plan, act, observe, up to the step ceiling. Every step streams through `emit`; every failure of a tool becomes
 * an observation for the model; a failure of the model, or a cancel, ends the loop with that status. Resolves
 * only when every tool call it started has settled, so nothing of the run happens after it returns.
 */
export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const { conversationId, emit, signal } = run;
  let status: RunStatus = "max_steps";
  let step = 0;
  let answer = "";
  try {
    if (!run.model) throw new ModelNotConfiguredError();
    const model = languageModel(run.model);
    const [toolset, messages] = await Promise.all([loadToolset(conversationId), conversationHistory(conversationId)]);

    while (step < config.maxSteps) {
      step++;
      emit({ type: "step_started", step });

      // Plan: one model call, streamed as it arrives. The tool list is rebuilt each step, so a tool registered
      // in step N is offered from step N+1 on.
      const plan = await streamStep(model, run.model.maxRetries, messages, toolset, step, emit, signal);
      answer = plan.text;
      if (plan.calls.length === 0) {
        emit({ type: "step_finished", step, finishReason: plan.finishReason, usage: plan.usage });
        status = "completed";
        break;
      }

      // Act: register_tool calls first, one at a time, since they change the tool set; then the rest in parallel.
      // A cancel ends each call promptly (its sandbox thread is terminated), and its result says so.
      const act = (call: ModelCall) => executeCall(call, step, toolset, run);
      const registering = plan.calls.filter((call) => toolset.get(call.name)?.changesToolset);
      const results: ToolResultEvent[] = [];
      for (const call of registering) results.push(await act(call));
      const others = plan.calls.filter((call) => !registering.includes(call));
      results.push(...(await Promise.all(others.map(act))));
      signal.throwIfAborted();

      // Observe: the results go back to the model in the next step.
      const callEvents = plan.calls.map((call): ToolCallEvent => ({ type: "tool_call", step, callId: call.callId, name: call.name, input: call.input }));
      messages.push(...stepMessages(plan.text, callEvents, results));
      emit({ type: "step_finished", step, finishReason: plan.finishReason, usage: plan.usage });
    }
  } catch (error) {
    if (signal.aborted) {
      status = "cancelled";
    } else {
      status = "error";
      emit({ type: "error", ...describeFailure(error) });
    }
  }
  return { status, steps: step, answer };
}

interface ModelCall {
  callId: string;
  name: string;
  input: unknown;
  /** Set when the call cannot be made as sent (arguments that are not JSON). */
  problem?: string;
}

interface StepPlan {
  text: string;
  calls: ModelCall[];
  finishReason: string;
  usage?: { inputTokens?: number; outputTokens?: number };
}

/**
 * One model call, streamed. The loop drives steps itself, so this is the SDK's single-call primitive rather than
 * streamText's step machinery: less per-chunk work on the streaming hot path. Retries of a failed request and the
 * idle timeout are handled here.
 */
async function streamStep(
  model: LanguageModel,
  maxRetries: number,
  messages: ModelMessage[],
  toolset: Toolset,
  step: number,
  emit: (event: AgentEvent) => void,
  signal: AbortSignal,
): Promise<StepPlan> {
  const idle = new IdleTimeout(config.modelIdleTimeoutMs, signal);
  try {
    const { stream } = await withRetries(maxRetries, signal, () =>
      streamModelCall({ model, system: SYSTEM_PROMPT, messages, tools: toolset.forModel(), abortSignal: idle.signal }),
    );
    const plan: StepPlan = { text: "", calls: [], finishReason: "unknown" };
    for await (const part of stream) {
      idle.reset();
      switch (part.type) {
        case "reasoning-delta":
          if (part.text) emit({ type: "reasoning_delta", step, delta: part.text });
          break;
        case "text-delta":
          if (!part.text) break;
          plan.text += part.text;
          emit({ type: "text_delta", step, delta: part.text });
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
          plan.finishReason = part.finishReason;
          plan.usage = { inputTokens: part.usage.inputTokens, outputTokens: part.usage.outputTokens };
          break;
        case "error":
          throw part.error;
      }
    }
    if (plan.finishReason === "unknown") throw new Error("The model stream ended before the model finished.");
    return plan;
  } catch (error) {
    throw new ModelFailure(idle.timedOut ? new Error(`The model sent nothing for ${config.modelIdleTimeoutMs} ms.`) : error);
  } finally {
    idle.clear();
  }
}

/** An abort signal that fires when the run is cancelled or when `reset` has not been called for `ms`. */
class IdleTimeout {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onParentAbort: () => void;
  timedOut = false;

  constructor(
    private readonly ms: number,
    private readonly parent: AbortSignal,
  ) {
    this.timer = this.start();
    this.onParentAbort = () => this.controller.abort(parent.reason);
    parent.addEventListener("abort", this.onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  reset(): void {
    this.timer.refresh();
  }

  /** Stop the timer and let go of the run's signal, which outlives every step. */
  clear(): void {
    clearTimeout(this.timer);
    this.parent.removeEventListener("abort", this.onParentAbort);
  }

  private start(): NodeJS.Timeout {
    return setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error("idle timeout"));
    }, this.ms);
  }
}

/** Retry a request that failed before streaming began, when the error says a retry may help (429, 5xx, network). */
async function withRetries<T>(maxRetries: number, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const retryable = APICallError.isInstance(error) && error.isRetryable;
      if (!retryable || attempt >= maxRetries || signal.aborted) throw error;
      // A cancel during the backoff ends the wait at once.
      await sleep(500 * 2 ** attempt, undefined, { signal });
    }
  }
}

async function executeCall(call: ModelCall, step: number, toolset: Toolset, run: AgentRun): Promise<ToolResultEvent> {
  const { callId, name, input } = call;
  const { conversationId, runId, emit, signal } = run;
  emit({ type: "tool_call", step, callId, name, input });
  const started = performance.now();
  const result: ToolResult = call.problem ? { ok: false, error: call.problem } : await toolset.call(name, input, { conversationId, runId, signal });
  const durationMs = Math.round(performance.now() - started);

  if (result.ok && result.registered) emit({ type: "tool_registered", step, callId, tool: result.registered });
  if (!result.ok && result.rejected) emit({ type: "tool_rejected", step, callId, ...result.rejected });
  const observation: ToolResultEvent = { type: "tool_result", step, callId, name, ok: result.ok, durationMs, ...capOutput(result) };
  emit(observation);

  recordExecution({
    conversationId,
    runId,
    callId,
    toolName: name,
    toolId: toolset.get(name)?.toolId,
    input,
    output: observation.output,
    error: observation.error,
    status: result.ok ? "succeeded" : result.cancelled ? "cancelled" : "failed",
    durationMs,
  }).catch((error) => console.error("Could not record a tool execution:", error));
  return observation;
}

/** The model and the trace see at most `toolOutputChars` of a result, with a marker that says so. */
function capOutput(result: ToolResult): Pick<ToolResultEvent, "output" | "error" | "truncated"> {
  const limit = config.toolOutputChars;
  const marker = (total: string) => `\n…[truncated: the output was ${total} characters; only the first ${limit} are shown]`;
  if (!result.ok) {
    return result.error.length <= limit ? { error: result.error } : { error: result.error.slice(0, limit) + marker(String(result.error.length)) };
  }
  const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? null);
  if (!result.truncated && text.length <= limit) return { output: result.output ?? null };
  return { output: text.slice(0, limit) + marker(result.truncated ? `more than ${limit}` : String(text.length)), truncated: true };
}

class ModelNotConfiguredError extends Error {
  constructor() {
    super(MODEL_SETUP_HINT);
  }
}

/** Anything that went wrong while asking the model: HTTP errors, a dropped or silent stream. */
class ModelFailure extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

function describeFailure(error: unknown): { message: string; code: string } {
  if (error instanceof ModelNotConfiguredError) return { code: "model_not_configured", message: error.message };
  if (error instanceof ModelFailure && APICallError.isInstance(error.reason)) {
    const { statusCode, message } = error.reason;
    return { code: "model_http_error", message: `The model server answered ${statusCode ?? "with an error"}: ${message}`.slice(0, 2000) };
  }
  if (error instanceof ModelFailure) return { code: "model_error", message: `The model request failed: ${error.message}`.slice(0, 2000) };
  console.error("A run failed:", error);
  return { code: "internal_error", message: "The run failed on the server; the error was logged." };
}
