import type { Trace } from "./load";
import { applyEvents, emptyTrace } from "./state";

/**
 * What a page sends the browser: the event log folded into runs and steps on the server, which is far smaller
 * to send and to hydrate than the events themselves.
 */
export function initialView({ events, ...trace }: Trace) {
  return {
    id: trace.id,
    title: trace.title,
    profile: trace.profile,
    activeRunId: trace.activeRunId,
    runs: trace.runs.map((run) => ({ id: run.id, createdAt: run.createdAt })),
    messages: trace.messages.map((message) => ({ ...message, role: message.role as "user" | "assistant" })),
    trace: applyEvents(emptyTrace, events),
  };
}

export type InitialView = ReturnType<typeof initialView>;
