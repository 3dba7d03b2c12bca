"use client";

import { GitBranch, Loader2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { TraceViewer } from "./TraceContext";
import { useOpenWhenDone } from "./useOpenWhenDone";

/**
 * "Continue from here": copies the conversation up to the end of this card's step into a new conversation of the
 * viewer's (owner or link holder), tools included, and opens it; the original is untouched.
 */
export function ContinueFromHere({ viewer, eventId, label }: { viewer: TraceViewer; eventId: number; label: string }) {
  const { busy, problem, open } = useOpenWhenDone();
  const continueFrom = () => open(async () => (await api.continueFrom(viewer.source, eventId)).url);
  const Icon = busy ? Loader2 : GitBranch;
  return (
    <>
      {problem && (
        <span role="alert" className="text-[11px] text-rose-700 dark:text-rose-300">
          {problem}
        </span>
      )}
      <button
        type="button"
        onClick={() => void continueFrom()}
        disabled={busy}
        aria-label={`Continue from ${label}`}
        title="Continue from here: a copy of the conversation up to the end of this step, in your chats"
        className="rounded-md p-1 text-zinc-500 hover:bg-zinc-200/70 hover:text-zinc-800 disabled:opacity-60 dark:text-zinc-400 dark:hover:bg-zinc-700/60 dark:hover:text-zinc-100"
      >
        <Icon className={`size-3.5 ${busy ? "animate-spin" : ""}`} aria-hidden />
      </button>
    </>
  );
}
