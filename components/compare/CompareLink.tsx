"use client";

import { GitCompareArrows } from "lucide-react";
import { useTraceViewer } from "@/components/trace/TraceContext";

/** "Compare…" in a run's header: the compare page, with this run on the left and the other one to choose there. */
export function CompareLink({ runId, index }: { runId: string; index: number }) {
  const viewer = useTraceViewer();
  if (!viewer) return null;
  return (
    <a
      href={`${viewer.pagePath}/compare?a=${encodeURIComponent(runId)}`}
      aria-label={`Compare run ${index + 1} with another run`}
      className="inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200/70 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-700/60 dark:hover:text-zinc-100"
    >
      <GitCompareArrows className="size-3.5" aria-hidden /> Compare…
    </a>
  );
}
