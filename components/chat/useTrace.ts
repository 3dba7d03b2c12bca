"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { RegisteredToolView } from "@/lib/events/types";
import { applyEvents, type TraceEvent, type TraceState } from "@/lib/trace/state";

/**
 * The trace in the browser. Events arriving between two frames are applied together, so a fast stream costs
 * one render per frame, not one per delta.
 */
export function useTrace(initialTrace: TraceState, initialRunStarts: Record<string, string>) {
  const [trace, setTrace] = useState(initialTrace);
  const [runStarts, setRunStarts] = useState(initialRunStarts);
  const pending = useRef<TraceEvent[]>([]);
  const frame = useRef<number | null>(null);
  const lastSeen = useRef(trace.lastEventId);

  const flush = useCallback(() => {
    frame.current = null;
    const batch = pending.current;
    pending.current = [];
    if (batch.length > 0) setTrace((state) => applyEvents(state, batch));
  }, []);

  const push = useCallback(
    (event: TraceEvent) => {
      lastSeen.current = Math.max(lastSeen.current, event.id);
      if (event.type === "run_started") setRunStarts((starts) => (starts[event.runId] ? starts : { ...starts, [event.runId]: new Date().toISOString() }));
      pending.current.push(event);
      // Hidden tabs get no animation frames: apply at once there.
      if (document.hidden) flush();
      else frame.current ??= requestAnimationFrame(flush);
    },
    [flush],
  );

  useEffect(() => () => void (frame.current !== null && cancelAnimationFrame(frame.current)), []);

  const tools = useMemo(() => {
    const registered: RegisteredToolView[] = [];
    for (const run of trace.runs) for (const step of run.steps) for (const call of step.calls) if (call.registered) registered.push(call.registered);
    return registered;
  }, [trace.runs]);

  /** The newest event id received, applied or not yet: where a reconnect resumes. */
  const lastSeenId = useCallback(() => lastSeen.current, []);

  return { trace, tools, runStarts, push, lastSeenId };
}
