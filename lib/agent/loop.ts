import { config, MODEL_SETUP_HINT, type ModelConfig } from "@/lib/settings/config";
import { recordExecution } from "@/lib/db/queries/executions";
import type { AgentEvent, RunStatus } from "@/lib/contract/events";
import type { AgentProfile } from "@/lib/settings/profiles";
import { callOutcome, loadToolset, type Toolset } from "@/lib/tools/toolset";
import type { ToolResult } from "@/lib/tools/types";
import { conversationHistory, stepMessages } from "./history";
import { languageModel } from "./model";
import { IdleTimeout, ModelFailure, streamStep, type ModelCall } from "./model-step";

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
  /** The conversation's owner: its tools and data are the ones the run uses. */
  ownerId: string;
  /** Which tools the run may use, and their settings. */
  profile: AgentProfile;
  conversationId: string;
  runId: string;
  model: ModelConfig | undefined;
  emit: (event: AgentEvent) => void;
  /** Resolves once every event emitted so far is stored; rejects when they cannot be. */
  stored: () => Promise<void>;
  /** Aborted when the run is cancelled: it reaches the model request, every tool call and their fetches. */
  signal: AbortSignal;
  /** Ask the conversation's owner whether a call may run; resolves with their answer (a cancel denies). */
  requestApproval: (step: number, callId: string, tool: string, input: unknown) => Promise<boolean>;
  /** A run taken over from an instance that died: the steps it had finished are in the history; go on after them. */
  resumeAfterStep?: number;
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
  let step = run.resumeAfterStep ?? 0;
  let answer = "";
  try {
    if (!run.model) throw new ModelNotConfiguredError();
    const idle = new IdleTimeout(config.modelIdleTimeoutMs);
    const model = languageModel(run.model, () => idle.reset());
    const [toolset, messages] = await Promise.all([
      loadToolset(conversationId, run.ownerId, run.profile),
      conversationHistory(conversationId, run.resumeAfterStep === undefined ? undefined : run.runId),
    ]);

    while (step < config.maxSteps) {
      step++;
      emit({ type: "step_started", step });

      // Plan: one model call, streamed as it arrives. The tool list is rebuilt each step, so a tool registered
      // in step N is offered from step N+1 on.
      const plan = await streamStep({
        model,
        system: SYSTEM_PROMPT,
        messages,
        tools: toolset.forModel(),
        step,
        maxRetries: run.model.maxRetries,
        idle,
        emit,
        signal,
      });
      answer = plan.text;
      if (plan.calls.length === 0) {
        emit({ type: "step_finished", step, finishReason: plan.finishReason, usage: plan.usage });
        status = "completed";
        break;
      }

      // Act: register_tool calls first, one at a time, since they change the tool set; then the rest in parallel.
      // Calls are stored before they act: an instance that takes the run over then knows they may have acted, and
      // ends the step instead of making them again (run.ts). None starts once the run is stopped; a cancel ends each
      // call in progress promptly (its sandbox thread is terminated), and its result says so.
      const act = async (calls: ModelCall[]): Promise<ToolResultEvent[]> => {
        signal.throwIfAborted();
        for (const { callId, name, input } of calls) emit({ type: "tool_call", step, callId, name, input });
        await run.stored();
        // Stopped while they were stored: from here to the calls (and an approval's question) nothing waits.
        signal.throwIfAborted();
        return Promise.all(calls.map((call) => executeCall(call, step, toolset, run)));
      };
      const registering = plan.calls.filter((call) => toolset.get(call.name)?.changesToolset);
      const others = plan.calls.filter((call) => !registering.includes(call));
      const results: ToolResultEvent[] = [];
      for (const call of registering) results.push(...(await act([call])));
      if (others.length > 0) results.push(...(await act(others)));
      signal.throwIfAborted();

      // Observe: the results go back to the model in the next step.
      const callEvents = plan.calls.map((call): ToolCallEvent => ({
        type: "tool_call",
        step,
        callId: call.callId,
        name: call.name,
        input: call.input,
      }));
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

async function executeCall(call: ModelCall, step: number, toolset: Toolset, run: AgentRun): Promise<ToolResultEvent> {
  const { callId, name, input } = call;
  const { ownerId, conversationId, runId, emit, signal } = run;
  const started = performance.now();
  const result: ToolResult = call.problem
    ? { ok: false, error: call.problem }
    : await toolset.call(name, input, {
        ownerId,
        conversationId,
        runId,
        signal,
        requestApproval: (tool, toolInput) => run.requestApproval(step, callId, tool, toolInput),
      });
  const durationMs = Math.round(performance.now() - started);

  if (result.ok && result.registered) emit({ type: "tool_registered", step, callId, tool: result.registered });
  if (!result.ok && result.rejected) emit({ type: "tool_rejected", step, callId, ...result.rejected });
  const observation: ToolResultEvent = {
    type: "tool_result",
    step,
    callId,
    name,
    ok: result.ok,
    durationMs,
    ...capOutput(result),
  };
  emit(observation);

  recordExecution({
    source: "chat",
    conversationId,
    runId,
    callId,
    toolName: name,
    toolId: toolset.get(name)?.toolId,
    input,
    output: observation.output,
    error: observation.error,
    status: callOutcome(result),
    durationMs,
  }).catch((error) => console.error("Could not record a tool execution:", error));
  return observation;
}

/** The model and the trace see at most `toolOutputChars` of a result, with a marker that says so. */
function capOutput(result: ToolResult): Pick<ToolResultEvent, "output" | "error" | "truncated"> {
  const limit = config.toolOutputChars;
  const marker = (total: string) =>
    `\n…[truncated: the output was ${total} characters; only the first ${limit} are shown]`;
  if (!result.ok) {
    return result.error.length <= limit
      ? { error: result.error }
      : { error: result.error.slice(0, limit) + marker(String(result.error.length)) };
  }
  const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? null);
  if (!result.truncated && text.length <= limit) return { output: result.output ?? null };
  return {
    output: text.slice(0, limit) + marker(result.truncated ? `more than ${limit}` : String(text.length)),
    truncated: true,
  };
}

class ModelNotConfiguredError extends Error {
  constructor() {
    super(MODEL_SETUP_HINT);
  }
}

function describeFailure(error: unknown): { message: string; code: string } {
  if (error instanceof ModelNotConfiguredError) return { code: "model_not_configured", message: error.message };
  if (error instanceof ModelFailure) return error.describe();
  console.error("A run failed:", error);
  return { code: "internal_error", message: "The run failed on the server; the error was logged." };
}
