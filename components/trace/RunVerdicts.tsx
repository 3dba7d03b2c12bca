"use client";

import { ThumbsDown, ThumbsUp } from "lucide-react";
import { useState, type FormEvent } from "react";
import { api, problemText } from "@/lib/api/client";
import { MAX_NOTE_CHARS } from "@/lib/contract/review";
import type { Verdict } from "@/lib/contract/events";
import type { RunView } from "@/lib/trace/state";
import { useTraceViewer } from "./TraceContext";

const CHOICES = [
  { verdict: "up", icon: ThumbsUp, name: "Thumbs up" },
  { verdict: "down", icon: ThumbsDown, name: "Thumbs down" },
] as const;

/**
 * A run's verdicts: thumbs up or down from the owner and from reviewers, each with an optional note; the viewer's
 * own is pressed, and giving another replaces it. After a click, a note can say why.
 */
export function RunVerdicts({ run, runLabel }: { run: RunView; runLabel: string }) {
  const viewer = useTraceViewer();
  const [noting, setNoting] = useState<Verdict["verdict"] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (!viewer) return null;
  const mine = run.verdicts.find((verdict) => verdict.author.key === viewer.review.authorKey);
  const give = async (verdict: Verdict["verdict"], note?: string) => {
    setProblem(null);
    try {
      const given = await api.giveVerdict(viewer.source, { runId: run.runId, verdict, ...(note && { note }) });
      viewer.review.learnAuthorKey(given.author.key);
      setNoting(note === undefined ? verdict : null);
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  return (
    <div className="flex flex-wrap items-center gap-1.5" data-testid="verdicts">
      {CHOICES.map(({ verdict, icon: Icon, name }) => {
        const count = run.verdicts.filter((given) => given.verdict === verdict).length;
        return (
          <button
            key={verdict}
            type="button"
            aria-pressed={mine?.verdict === verdict}
            aria-label={`${name} on ${runLabel}${count ? ` (${count} so far)` : ""}`}
            onClick={() => void give(verdict)}
            className="inline-flex items-center gap-1 rounded-md border border-zinc-200 px-1.5 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 aria-pressed:border-zinc-800 aria-pressed:bg-zinc-800 aria-pressed:text-white dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-pressed:bg-zinc-200 dark:aria-pressed:text-zinc-900"
          >
            <Icon className="size-3.5" aria-hidden />
            {count > 0 && <span>{count}</span>}
          </button>
        );
      })}
      {noting && <VerdictNote verdict={noting} runLabel={runLabel} onSave={(note) => give(noting, note)} />}
      {problem && (
        <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      {run.verdicts.length > 0 && (
        <ul aria-label={`Verdicts on ${runLabel}`} className="basis-full space-y-0.5 text-xs">
          {run.verdicts.map((verdict) => (
            <li key={verdict.author.key} className="text-zinc-700 dark:text-zinc-300" data-testid="verdict">
              <span className="font-medium">{verdict.author.name}</span>:{" "}
              {verdict.verdict === "up" ? "thumbs up" : "thumbs down"}
              {verdict.note && <span className="text-zinc-600 dark:text-zinc-400"> — {verdict.note}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function VerdictNote({
  verdict,
  runLabel,
  onSave,
}: {
  verdict: Verdict["verdict"];
  runLabel: string;
  onSave: (note: string) => Promise<void>;
}) {
  const [note, setNote] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (note.trim()) void onSave(note.trim());
  };
  return (
    <form onSubmit={submit} className="flex items-center gap-1">
      <input
        value={note}
        onChange={(event) => setNote(event.target.value)}
        maxLength={MAX_NOTE_CHARS}
        aria-label={`Why thumbs ${verdict} on ${runLabel}? (optional)`}
        placeholder="Why? (optional)"
        className="w-40 rounded-md border border-zinc-300 bg-white px-1.5 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950"
      />
      <button
        type="submit"
        className="rounded-md px-1.5 py-0.5 text-xs font-medium text-zinc-800 hover:bg-zinc-100 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        Save note
      </button>
    </form>
  );
}
