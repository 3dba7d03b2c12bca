"use client";

import { Loader2, ListChecks } from "lucide-react";
import { api } from "@/lib/api/client";
import type { RunView } from "@/lib/trace/state";
import { useTraceViewer } from "./TraceContext";
import { useOpenWhenDone } from "./useOpenWhenDone";

/**
 * "Run again with a plan" (or without): the run's message sent again in a fork, in the other mode, then the compare
 * page of the two runs. The owner's, once the run has finished.
 */
export function RerunButton({ run, index }: { run: RunView; index: number }) {
  const viewer = useTraceViewer();
  const { busy, problem, open } = useOpenWhenDone();
  if (!viewer?.owner || !("conversationId" in viewer.source) || run.status === "running") return null;
  const { conversationId } = viewer.source;
  const plan = !run.planFirst;
  const rerun = () => open(async () => (await api.rerun(conversationId, run.runId, plan)).compareUrl);
  const Icon = busy ? Loader2 : ListChecks;
  return (
    <>
      <button
        type="button"
        onClick={() => void rerun()}
        disabled={busy}
        aria-label={`Run again ${plan ? "with" : "without"} a plan: run ${index + 1}, then compare`}
        className="inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200/70 hover:text-zinc-900 disabled:opacity-60 dark:text-zinc-400 dark:hover:bg-zinc-700/60 dark:hover:text-zinc-100"
      >
        <Icon className={`size-3.5 ${busy ? "animate-spin" : ""}`} aria-hidden />
        Run again {plan ? "with" : "without"} a plan
      </button>
      {problem && (
        <span role="alert" className="text-[11px] text-rose-700 dark:text-rose-300">
          {problem}
        </span>
      )}
    </>
  );
}
