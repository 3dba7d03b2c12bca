"use client";

import { Ban, CheckCircle2, Loader2, OctagonAlert, TriangleAlert } from "lucide-react";
import { useEffect, useState } from "react";
import type { RunView } from "@/lib/trace/state";

const finished = {
  completed: {
    label: "Completed",
    icon: CheckCircle2,
    className: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/40 dark:text-emerald-200",
  },
  max_steps: {
    label: "Stopped at the step ceiling",
    icon: TriangleAlert,
    className: "bg-amber-100 text-amber-900 dark:bg-amber-900/40 dark:text-amber-200",
  },
  error: {
    label: "Error",
    icon: OctagonAlert,
    className: "bg-rose-100 text-rose-900 dark:bg-rose-900/40 dark:text-rose-200",
  },
  cancelled: {
    label: "Cancelled",
    icon: Ban,
    className: "bg-zinc-200 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200",
  },
} as const;

/** Where a run is: running (with elapsed time), completed, stopped at the ceiling, failed, cancelled. */
export function RunStatusBadge({ run, startedAt }: { run: RunView; startedAt?: string }) {
  if (run.status === "running") return <Elapsed since={startedAt} />;
  const { label, icon: Icon, className } = finished[run.status];
  return (
    <span
      data-testid="run-status"
      data-status={run.status}
      className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${className}`}
    >
      <Icon className="size-3.5" aria-hidden />
      {label}
    </span>
  );
}

function Elapsed({ since }: { since?: string }) {
  const [start] = useState(() => (since ? Date.parse(since) : Date.now()));
  const [now, setNow] = useState(start);
  useEffect(() => {
    const tick = () => setNow(Date.now());
    // The server rendered the start time; catch up at once on the client, then every second.
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, []);
  const seconds = Math.max(0, Math.floor((now - start) / 1000));
  return (
    <span
      data-testid="run-status"
      data-status="running"
      className="inline-flex items-center gap-1 rounded-full bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-900 dark:bg-sky-900/40 dark:text-sky-200"
    >
      <Loader2 className="size-3.5 animate-spin" aria-hidden />
      Running · {seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`}
    </span>
  );
}
