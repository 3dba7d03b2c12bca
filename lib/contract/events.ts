import type { Violation } from "@/lib/sandbox/check";

/**
 * The one SSE message that is not an event of the log (its id is 0, the log's start): what the stream showed past
 * the stored log was dropped (its run moved to another instance first), so read the log again from the start.
 */
export const RESYNC = "resync";

/** The SSE contract: every event a run streams, and replays, by type. */
export type RunStatus = "completed" | "max_steps" | "error" | "cancelled";

export interface RegisteredToolView {
  /** This version's id. */
  id: string;
  /** The tool's id (shared by its versions), as the /api/tools routes know it. */
  toolId: string;
  name: string;
  description: string;
  parametersSchema: Record<string, unknown>;
  code: string;
  version: number;
}

export type AgentEvent =
  | { type: "run_started"; messageId: string; model: string; profile?: string; segment?: string }
  | { type: "step_started"; step: number }
  | { type: "reasoning_delta"; step: number; delta: string }
  | { type: "text_delta"; step: number; delta: string }
  | { type: "tool_call"; step: number; callId: string; name: string; input: unknown }
  | {
      type: "tool_result";
      step: number;
      callId: string;
      name: string;
      ok: boolean;
      output?: unknown;
      error?: string;
      durationMs: number;
      truncated?: boolean;
    }
  | { type: "tool_registered"; step: number; callId: string; tool: RegisteredToolView }
  | { type: "tool_rejected"; step: number; callId: string; name: string; code: string; violations: Violation[] }
  /** The profile asks a person first: the call waits until POST .../approvals/{approvalId} answers. */
  | { type: "approval_requested"; step: number; callId: string; approvalId: string; tool: string; input: unknown }
  | { type: "approval_resolved"; step: number; callId: string; approvalId: string; approved: boolean }
  | {
      type: "step_finished";
      step: number;
      finishReason: string;
      usage?: { inputTokens?: number; outputTokens?: number };
    }
  | { type: "error"; message: string; code: string }
  /**
   * The instance executing the run died; another took it over and goes on after step `step`, or ends the run (an
   * `instance_lost` error follows) when the tool calls of the step after it had started.
   */
  | { type: "run_resumed"; step: number; message: string; segment?: string }
  | { type: "run_finished"; status: RunStatus; steps: number };

/**
 * Whether an event begins a segment of the log, the part one instance wrote: a run, or its continuation by the
 * instance that took it over. Its `segment` token tells it from another segment begun at the same id (one that
 * was shown but never stored, by an instance that died). A client that resumes names the last one it saw, by id
 * and token (lib/http/access.ts resumePoint). Logs written before tokens have none.
 */
export const startsSegment = (event: {
  type: string;
}): event is { type: "run_started" | "run_resumed"; segment?: string } =>
  event.type === "run_started" || event.type === "run_resumed";

/** A segment of the log as a client names it: the id of the event that began it, and its token (where it had one). */
export interface SegmentStart {
  id: number;
  token?: string;
}

/** The largest event id: an id is its event's seq in the log, a 32-bit integer column on PostgreSQL. */
export const MAX_EVENT_ID = 2 ** 31 - 1;

/** What a segment token may be: lib/runs/run.ts makes UUIDs, with room for other clients' own. */
export const SEGMENT_TOKEN = /^[\w-]{1,64}$/;

/** An event as it travels and is stored: its place in the conversation's log and the run it belongs to. */
export type LoggedEvent = AgentEvent & { runId: string };
export interface SequencedEvent {
  seq: number;
  event: LoggedEvent;
}
