import type { LoggedEvent, RunStatus } from "./events";

/*
 * The event log's constants, without zod: the browser imports them (the schemas in events.ts stay on the server
 * and in the tests).
 */

/**
 * The one SSE message that is not an event of the log (its id is 0, the log's start): what the stream showed past
 * the stored log was dropped (its run moved to another instance first), so read the log again from the start.
 */
export const RESYNC = "resync";

/**
 * Whether an event begins a segment of the log, the part one instance wrote; its `segment` token tells it from another
 * begun at the same id (docs/architecture.md, "Segments and resync"). Logs written before tokens have none.
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

/**
 * How a run copied only up to one of its steps ends: cut short by a person, as Stop ends a run. "completed" would
 * claim an answer the model never gave, and the trace would show the cut run as if it had succeeded.
 */
export const CUT_RUN_STATUS: RunStatus = "cancelled";

/** What of a conversation's log a fork copies. */
export interface ForkedLog {
  /** The whole conversation, or only up to a step: then runs, messages and tools of no copied event stay out. */
  whole: boolean;
  /** In order, to be numbered 1, 2, 3 … in the fork: no review events, and the closing run_finished of a cut run. */
  events: LoggedEvent[];
  /** Every run the copy has events of. */
  runIds: Set<string>;
  /** The run copied only up to a step, closed by a run_finished of the fork's own; none when runs are copied whole. */
  cut?: { runId: string; steps: number; endedAt: number };
}
