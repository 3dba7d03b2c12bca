import type { ModelMessage, ToolSet } from "ai";
import type { AgentEvent, RunStatus } from "@/lib/contract/events";
import type { CallOutcome } from "@/lib/tools/call";
import type { RunCall } from "@/lib/tools/toolset";
import { stepMessages } from "./history";
import type { ModelSession } from "./model";
import { ModelFailure, streamStep, type ModelCall } from "./model-step";
import { PLAN_TOOL, PLANNING_INSTRUCTION, type RunPlan } from "./plan";
import { SYSTEM_PROMPT } from "./system-prompt";

type ToolCallEvent = Extract<AgentEvent, { type: "tool_call" }>;
type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;

/** What the loop needs of the run's tools (lib/tools/toolset.ts; a test passes its own). */
export interface LoopToolset {
  /** The tool list for the next model request: rebuilt every step, since register_tool adds to it. */
  forModel(): ToolSet;
  get(name: string): { changesToolset?: boolean } | undefined;
  call(name: string, call: RunCall): Promise<CallOutcome>;
}

export interface AgentRun {
  /** Undefined when no model is configured: the run ends with an error that says what to set. */
  model: ModelSession | undefined;
  tools: LoopToolset;
  /** The conversation so far (history.ts); the loop appends each step to it. */
  messages: ModelMessage[];
  /** Whose run it is: its tool calls act for the owner, in the conversation. */
  caller: { ownerId: string; conversationId: string; runId: string };
  maxSteps: number;
  emit: (event: AgentEvent) => void;
  /** Now, in epoch ms on the clock the instances share: the times of the model's answer and of each tool call. */
  now: () => number;
  /** Resolves once every event emitted so far is stored; rejects when they cannot be. */
  stored: () => Promise<void>;
  /** Aborted when the run is cancelled: it reaches the model request, every tool call and their fetches. */
  signal: AbortSignal;
  /** Ask the conversation's owner whether a call may run; resolves with their answer (a cancel denies). */
  requestApproval: (step: number, callId: string, tool: string, input: unknown) => Promise<boolean>;
  /** Plan first (lib/agent/plan.ts): absent, the run has no plan. */
  plan?: RunPlan;
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
  const { emit, signal, tools, messages } = run;
  let status: RunStatus = "max_steps";
  let step = run.resumeAfterStep ?? 0;
  let answer = "";
  try {
    if (!run.model) throw new ModelNotConfiguredError();
    const { model, idle, maxRetries } = run.model;

    while (step < run.maxSteps) {
      step++;
      emit({ type: "step_started", step });

      // Plan: one model call, streamed as it arrives. The tool list is rebuilt each step, so a tool registered
      // in step N is offered from step N+1 on. With plan first, the first step offers plan alone and requires it
      // (by tool choice where the model takes one; the system prompt says so too).
      const planning = run.plan?.planning ?? false;
      const planTools = run.plan?.tools() ?? {};
      const plan = await streamStep({
        model,
        system: planning ? SYSTEM_PROMPT + PLANNING_INSTRUCTION : SYSTEM_PROMPT,
        messages,
        tools: planning ? planTools : { ...tools.forModel(), ...planTools },
        ...(planning && !run.model.refusesToolChoice && { toolChoice: { type: "tool", toolName: PLAN_TOOL } as const }),
        step,
        maxRetries,
        idle,
        emit,
        signal,
        providerOptions: run.model.providerOptions,
        now: run.now,
      });
      answer = plan.text;
      if (plan.calls.length === 0) {
        emit({ type: "step_finished", step, finishReason: plan.finishReason, usage: plan.usage, model: plan.timing });
        status = "completed";
        break;
      }

      // Act: register_tool calls first, one at a time, since they change the tool set; then the rest in parallel.
      // Calls are stored before they act, so that an instance taking the run over knows they may have acted and
      // does not make them again (lib/runs/run.ts). None starts once the run is stopped.
      const act = async (calls: ModelCall[]): Promise<ToolResultEvent[]> => {
        signal.throwIfAborted();
        for (const { callId, name, input } of calls) emit({ type: "tool_call", step, callId, name, input });
        await run.stored();
        // Stopped while they were stored: from here to the calls (and an approval's question) nothing waits.
        signal.throwIfAborted();
        return everyCall(calls.map((call) => executeCall(call, step, run)));
      };
      const registering = plan.calls.filter((call) => tools.get(call.name)?.changesToolset);
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
      messages.push(...stepMessages(plan.text, callEvents, results, plan.reasoning));
      emit({ type: "step_finished", step, finishReason: plan.finishReason, usage: plan.usage, model: plan.timing });
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

/** One call through the tool-call path; its outcome becomes the step's events. */
async function executeCall(call: ModelCall, step: number, run: AgentRun) {
  if (run.plan?.handles(call.name)) return planCall(call, step, run, run.plan);
  const { callId, name, input, problem } = call;
  const startedAt = run.now();
  const { result, durationMs, server } = await run.tools.call(name, {
    input,
    problem,
    caller: { ...run.caller, callId, step },
    signal: run.signal,
    requestApproval: (tool, toolInput) => run.requestApproval(step, callId, tool, toolInput),
    onNested: (event) => run.emit({ ...event, step }),
  });
  if (result.ok && result.registered) {
    const tool = result.registered;
    run.emit({ type: "tool_registered", step, callId, tool, tool_name: tool.name, description: tool.description });
  }
  if (!result.ok && result.rejected) run.emit({ type: "tool_rejected", step, callId, ...result.rejected });
  const observation: ToolResultEvent = {
    type: "tool_result",
    step,
    callId,
    name,
    ok: result.ok,
    durationMs: Math.round(durationMs),
    startedAt,
    ...(server && { server }),
    ...(result.ok
      ? {
          output: result.output,
          ...(result.truncated && { truncated: true }),
          ...(result.images && { images: result.images }),
          ...(result.logs && { logs: result.logs }),
          ...(result.files && { files: result.files }),
          ...(result.deletedFiles && { deletedFiles: result.deletedFiles }),
          ...(result.refusedFiles && { refusedFiles: result.refusedFiles }),
        }
      : { error: result.error }),
  };
  run.emit(observation);
  return observation;
}

/** A call of plan or update_plan: the loop's own, answered at once; a valid one becomes the plan's event. */
function planCall({ callId, name, input, problem }: ModelCall, step: number, run: AgentRun, plan: RunPlan) {
  const startedAt = run.now();
  const outcome = problem ? { ok: false as const, error: problem } : plan.call(name, input, step, callId);
  if (outcome.ok) run.emit(outcome.event);
  const observation: ToolResultEvent = {
    type: "tool_result",
    step,
    callId,
    name,
    ok: outcome.ok,
    durationMs: Math.round(run.now() - startedAt),
    startedAt,
    ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }),
  };
  run.emit(observation);
  return observation;
}

/** Promise.all that throws only once every call has settled: no call of the step goes on after the loop ends. */
async function everyCall<T>(calls: Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(calls);
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
}

class ModelNotConfiguredError extends Error {
  constructor() {
    super(
      "No model is configured. Set OPENAI_API_KEY (and optionally TOOLSMITH_MODEL) for OpenAI, ANTHROPIC_API_KEY " +
        "(and a claude- TOOLSMITH_MODEL) for Claude, or OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) " +
        "and TOOLSMITH_MODEL for an OpenAI-compatible server, then restart.",
    );
  }
}

function describeFailure(error: unknown): { message: string; code: string } {
  if (error instanceof ModelNotConfiguredError) return { code: "model_not_configured", message: error.message };
  if (error instanceof ModelFailure) return error.describe();
  console.error("A run failed:", error);
  return { code: "internal_error", message: "The run failed on the server; the error was logged." };
}
