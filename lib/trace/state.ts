import type {
  Annotation,
  ExampleOutcome,
  LoggedEvent,
  Plan,
  RegisteredToolView,
  RunStatus,
  ToolImage,
  WrittenFile,
  Verdict,
  Violation,
} from "@/lib/contract/events";
import { startsSegment, type SegmentStart } from "@/lib/contract/log";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import type { BuiltinToolName } from "@/lib/tools/names";

/** An event as the browser receives it: the SSE data, with the SSE id. */
export type TraceEvent = LoggedEvent & { id: number };

export interface ToolCallView {
  /** The id of its tool_call event: its permalink (#e{id}) and what annotations name. */
  eventId: number;
  callId: string;
  name: string;
  input: unknown;
  status: "running" | "ok" | "error";
  /** When the call began and ended, epoch ms; the start is its tool_call's time in logs without it. */
  startedAt: number;
  endedAt?: number;
  output?: unknown;
  error?: string;
  durationMs?: number;
  truncated?: boolean;
  registered?: RegisteredToolView;
  /** Set when the call was a registration that was refused: by the code policy, or by its examples. */
  rejected?: RejectedTool;
  /** The MCP server that answered, for a tool of a connected MCP server. */
  server?: string;
  images?: ToolImage[];
  /** What the tool's code printed, when it succeeded. */
  logs?: string[];
  /** Files the call wrote into the conversation's workspace, deleted from it, or wrote past a limit. */
  files?: WrittenFile[];
  deletedFiles?: string[];
  refusedFiles?: string[];
  /** The calls its code made with tools.call, in order, each with its own. */
  nested?: ToolCallView[];
  /** Set when the profile asked a person first. */
  approval?: { approvalId: string; state: "pending" | "approved" | "denied" };
}

const PLAN_TOOL = "think" satisfies BuiltinToolName;

/**
 * The thought of a call of the built-in think, shown as a plan rather than as a tool call. The name is enough:
 * built-in names are reserved, so no registered tool is called think. A think call that failed or asked a person
 * is left to the ordinary card, which shows errors and approvals.
 */
export function planOf(call: ToolCallView): string | undefined {
  if (call.name !== PLAN_TOOL || call.status === "error" || call.approval) return undefined;
  const { thought } = (call.input ?? {}) as { thought?: unknown };
  return typeof thought === "string" ? thought : undefined;
}

export interface RejectedTool {
  name: string;
  /** Absent in logs written before events carried it. */
  code?: string;
  /** The language of `code`; absent in logs written before Python, which are JavaScript. */
  language?: ToolLanguage;
  violations: Violation[];
  /** Every example, when one or more failed. */
  failures?: ExampleOutcome[];
}

export interface StepView {
  /** The id of its step_started event: its permalink (#e{id}) and what annotations name. */
  eventId: number;
  step: number;
  reasoning: string;
  text: string;
  calls: ToolCallView[];
  finishReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Epoch ms: the model call began (step_started) and its answer's first and last parts arrived. */
  startedAt: number;
  model?: { firstByteAt: number; lastByteAt: number };
  /** The step_finished's time: the step's calls are done too. */
  endedAt?: number;
}

export interface RunView {
  runId: string;
  messageId?: string;
  model?: string;
  /** The agent profile the run used; absent in logs written before profiles. */
  profile?: string;
  /** The run plans first (run_started said so). */
  planFirst?: boolean;
  /** Its plan as the latest plan_created or plan_updated left it; `eventId` is that event's. */
  plan?: Plan & { eventId: number };
  status: "running" | RunStatus;
  steps: StepView[];
  /** `eventId`: its error event's, the permalink of the run's failure. */
  error?: { message: string; code: string; eventId: number };
  /** The instance executing the run died and another took it over (run_resumed): what it said. */
  resumed?: string;
  /** Epoch ms: run_started, and run_finished once it ended. */
  startedAt: number;
  endedAt?: number;
  /** What reviewers wrote, by the id of the event they annotate (a step's or a tool call's), in the log's order. */
  annotations: Record<number, Annotation[]>;
  /** Each reviewer's latest verdict on the run, in the order first given. */
  verdicts: Verdict[];
}

export interface TraceState {
  runs: RunView[];
  /** Every event up to this id has been applied; older ids are ignored, so replays never double anything. */
  lastEventId: number;
  /** The last event that began a segment of the log (run_started, run_resumed): named on reconnect. */
  segment: SegmentStart;
}

export const emptyTrace: TraceState = { runs: [], lastEventId: 0, segment: { id: 0 } };

/** The segment a run_started or run_resumed begins, as a client names it when it reconnects. */
export const segmentOf = (event: { id: number; segment?: string }): SegmentStart => ({
  id: event.id,
  token: event.segment,
});

/**
 * Fold events into runs, steps and tool calls. Pure and copy-on-write: a new event copies only the run and step
 * it touches, so memoised views of everything else do not render again.
 */
export function applyEvents(state: TraceState, events: TraceEvent[]): TraceState {
  let runs = state.runs;
  let { lastEventId, segment } = state;
  for (const event of events) {
    if (event.id <= lastEventId) continue;
    lastEventId = event.id;
    if (startsSegment(event)) segment = segmentOf(event);
    runs = applyEvent(runs, event);
  }
  return runs === state.runs && lastEventId === state.lastEventId ? state : { runs, lastEventId, segment };
}

function applyEvent(runs: RunView[], event: TraceEvent): RunView[] {
  if (event.type === "run_started") {
    return [
      ...runs,
      {
        runId: event.runId,
        messageId: event.messageId,
        model: event.model,
        profile: event.profile,
        ...(event.plan && { planFirst: true }),
        status: "running",
        steps: [],
        startedAt: event.at,
        annotations: {},
        verdicts: [],
      },
    ];
  }
  if (event.type === "annotation_deleted") {
    const index = runs.findIndex((run) => withoutAnnotation(run, event.annotationId) !== run);
    return index === -1 ? runs : runs.with(index, withoutAnnotation(runs[index], event.annotationId));
  }
  const runId =
    event.type === "annotation_added"
      ? event.annotation.runId
      : event.type === "verdict_added"
        ? event.verdict.runId
        : event.runId;
  const index = runs.findLastIndex((run) => run.runId === runId);
  if (index === -1) return runs;
  const run = runs[index];
  const updated = updateRun(run, event);
  if (updated === run) return runs;
  const next = runs.slice();
  next[index] = updated;
  return next;
}

function updateRun(run: RunView, event: TraceEvent): RunView {
  switch (event.type) {
    case "step_started":
      return {
        ...run,
        steps: [
          ...run.steps,
          { eventId: event.id, step: event.step, reasoning: "", text: "", calls: [], startedAt: event.at },
        ],
      };
    case "reasoning_delta":
      return updateStep(run, event.step, (step) => ({ ...step, reasoning: step.reasoning + event.delta }));
    case "text_delta":
      return updateStep(run, event.step, (step) => ({ ...step, text: step.text + event.delta }));
    case "step_finished":
      return updateStep(run, event.step, (step) => ({
        ...step,
        finishReason: event.finishReason,
        usage: event.usage,
        model: event.model,
        endedAt: event.at,
      }));
    case "tool_call":
      return updateStep(run, event.step, (step) => ({
        ...step,
        calls: [...step.calls, startedCall(event)],
      }));
    case "tool_result":
      return updateCall(run, event.step, event.callId, (call) => ({
        ...finishedCall(call, event),
        truncated: event.truncated,
        images: event.images,
        logs: event.logs,
        files: event.files,
        deletedFiles: event.deletedFiles,
        refusedFiles: event.refusedFiles,
        startedAt: event.startedAt ?? call.startedAt,
      }));
    case "nested_tool_call":
      return updateCall(run, event.step, event.parentCallId, (parent) => ({
        ...parent,
        nested: [...(parent.nested ?? []), startedCall(event)],
      }));
    case "nested_tool_result":
      return updateCall(run, event.step, event.callId, (call) => finishedCall(call, event));
    case "tool_registered":
      return updateCall(run, event.step, event.callId, (call) => ({ ...call, registered: event.tool }));
    case "plan_created":
    case "plan_updated":
      return { ...run, plan: { ...event.plan, eventId: event.id } };
    case "tool_rejected":
      return updateCall(run, event.step, event.callId, (call) => ({
        ...call,
        rejected: {
          name: event.name,
          code: event.code,
          language: event.language,
          violations: event.violations,
          failures: event.failures,
        },
      }));
    case "approval_requested":
      return updateCall(run, event.step, event.callId, (call) => ({
        ...call,
        approval: { approvalId: event.approvalId, state: "pending" },
      }));
    case "approval_resolved":
      return updateCall(run, event.step, event.callId, (call) => ({
        ...call,
        approval: { approvalId: event.approvalId, state: event.approved ? "approved" : "denied" },
      }));
    case "error":
      return { ...run, error: { message: event.message, code: event.code, eventId: event.id } };
    case "run_resumed":
      return { ...run, resumed: event.message };
    case "run_finished":
      return { ...run, status: event.status, endedAt: event.at };
    case "annotation_added": {
      const { eventId } = event.annotation;
      return {
        ...run,
        annotations: { ...run.annotations, [eventId]: [...(run.annotations[eventId] ?? []), event.annotation] },
      };
    }
    case "verdict_added": {
      const { verdict } = event;
      const index = run.verdicts.findIndex((given) => given.author.key === verdict.author.key);
      const verdicts = run.verdicts.slice();
      if (index === -1) verdicts.push(verdict);
      else verdicts[index] = verdict;
      return { ...run, verdicts };
    }
    default:
      return run;
  }
}

function withoutAnnotation(run: RunView, annotationId: string): RunView {
  for (const [eventId, list] of Object.entries(run.annotations)) {
    if (!list.some((annotation) => annotation.id === annotationId)) continue;
    const rest = list.filter((annotation) => annotation.id !== annotationId);
    const annotations: RunView["annotations"] = { ...run.annotations, [eventId]: rest };
    if (rest.length === 0) delete annotations[Number(eventId)];
    return { ...run, annotations };
  }
  return run;
}

function updateStep(run: RunView, stepNumber: number, change: (step: StepView) => StepView): RunView {
  const index = run.steps.findLastIndex((step) => step.step === stepNumber);
  if (index === -1) return run;
  const steps = run.steps.slice();
  steps[index] = change(steps[index]);
  return { ...run, steps };
}

function updateCall(
  run: RunView,
  stepNumber: number,
  callId: string,
  change: (call: ToolCallView) => ToolCallView,
): RunView {
  return updateStep(run, stepNumber, (step) => ({ ...step, calls: changeCall(step.calls, callId, change) }));
}

type CallEvent = Extract<TraceEvent, { type: "tool_call" | "nested_tool_call" }>;
type ResultEvent = Extract<TraceEvent, { type: "tool_result" | "nested_tool_result" }>;

/** A call as it starts: the model's, or one a tool's code made. */
const startedCall = (event: CallEvent): ToolCallView => ({
  eventId: event.id,
  callId: event.callId,
  name: event.name,
  input: event.input,
  status: "running",
  startedAt: event.at,
});

/** A call as its result ends it. */
const finishedCall = (call: ToolCallView, event: ResultEvent): ToolCallView => ({
  ...call,
  status: event.ok ? "ok" : "error",
  output: event.output,
  error: event.error,
  durationMs: event.durationMs,
  server: event.server,
  endedAt: event.at,
});

/** The call `callId` changed, wherever it is: among the step's calls, or nested under one of them. */
function changeCall(
  calls: ToolCallView[],
  callId: string,
  change: (call: ToolCallView) => ToolCallView,
): ToolCallView[] {
  return calls.map((call) => {
    if (call.callId === callId) return change(call);
    return call.nested ? { ...call, nested: changeCall(call.nested, callId, change) } : call;
  });
}

/** The tool calls the model made in the run (not those its tools' code made). */
export const callCount = (run: RunView): number => run.steps.reduce((count, step) => count + step.calls.length, 0);

/** The assistant's answer so far: the text of the latest step that has any. */
export function answerOf(run: RunView): string {
  return run.steps.findLast((step) => step.text)?.text ?? "";
}

export function isRunning(state: TraceState): boolean {
  return state.runs.at(-1)?.status === "running";
}
