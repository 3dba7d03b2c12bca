"use client";

import { MessageSquarePlus, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import { api, problemText } from "@/lib/api/client";
import { MAX_NOTE_CHARS } from "@/lib/contract/review";
import type { Annotation } from "@/lib/contract/events";
import { useTraceViewer } from "./TraceContext";

/** A label's colour: a good one green, the rest amber (a problem to look at); the text says which, not the colour. */
const labelTone = (label: string) =>
  label === "good"
    ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-900/50 dark:text-emerald-100"
    : "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-100";

/**
 * What reviewers wrote on a card (a step or a tool call), live, and the form to add a note: for the owner and for
 * anyone with the share link. Authors delete their own; the owner, any.
 */
export function CardAnnotations({
  eventId,
  annotations = [],
  label,
}: {
  eventId: number;
  annotations?: Annotation[];
  /** What the card is, for the form's accessible names: "step 2", "the add call". */
  label: string;
}) {
  const viewer = useTraceViewer();
  const [open, setOpen] = useState(false);
  if (!viewer) return null;
  return (
    <div className="space-y-1.5" data-testid="annotations">
      {annotations.length > 0 && (
        <ul aria-label={`Annotations on ${label}`} className="space-y-1.5">
          {annotations.map((annotation) => (
            <AnnotationItem key={annotation.id} annotation={annotation} />
          ))}
        </ul>
      )}
      {open ? (
        <AnnotationForm eventId={eventId} label={label} onDone={() => setOpen(false)} />
      ) : (
        <button
          type="button"
          onClick={() => setOpen(true)}
          aria-label={`Annotate ${label}`}
          className="inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200/70 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
        >
          <MessageSquarePlus className="size-3.5" aria-hidden /> Annotate
        </button>
      )}
    </div>
  );
}

function AnnotationItem({ annotation }: { annotation: Annotation }) {
  const viewer = useTraceViewer()!;
  const [problem, setProblem] = useState<string | null>(null);
  const deletable = viewer.owner || annotation.author.key === viewer.review.authorKey;
  const remove = async () => {
    try {
      await api.deleteAnnotation(viewer.source, annotation.id);
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  return (
    <li
      className="rounded-lg border border-zinc-200 bg-zinc-50 px-2.5 py-1.5 text-[13px] dark:border-zinc-700 dark:bg-zinc-900"
      data-testid="annotation"
    >
      <div className="flex flex-wrap items-center gap-2">
        <span className={`rounded-full px-2 py-0.5 text-[11px] font-medium ${labelTone(annotation.label)}`}>
          {annotation.label}
        </span>
        <span className="text-xs font-medium text-zinc-800 dark:text-zinc-200">{annotation.author.name}</span>
        <time className="text-[11px] text-zinc-600 dark:text-zinc-400" dateTime={new Date(annotation.at).toISOString()}>
          {new Date(annotation.at).toLocaleString()}
        </time>
        {deletable && (
          <button
            type="button"
            onClick={() => void remove()}
            aria-label={`Delete ${annotation.author.name}'s annotation "${annotation.label}"`}
            className="ml-auto rounded p-0.5 text-zinc-500 hover:bg-zinc-200 hover:text-rose-700 dark:hover:bg-zinc-800 dark:hover:text-rose-300"
          >
            <Trash2 className="size-3.5" aria-hidden />
          </button>
        )}
      </div>
      {annotation.note && (
        <p className="mt-1 whitespace-pre-wrap break-words text-zinc-800 dark:text-zinc-200">{annotation.note}</p>
      )}
      {problem && (
        <p role="alert" className="mt-1 text-xs text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
    </li>
  );
}

function AnnotationForm({ eventId, label, onDone }: { eventId: number; label: string; onDone: () => void }) {
  const viewer = useTraceViewer()!;
  const { labels } = viewer.review;
  const [choice, setChoice] = useState(labels[0]);
  const [note, setNote] = useState("");
  const [working, setWorking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setWorking(true);
    try {
      const annotation = await api.annotate(viewer.source, { eventId, label: choice, note });
      viewer.review.learnAuthorKey(annotation.author.key);
      onDone();
    } catch (error) {
      setProblem(problemText(error));
      setWorking(false);
    }
  };
  return (
    <form
      onSubmit={(event) => void submit(event)}
      onKeyDown={(event) => event.key === "Escape" && onDone()}
      aria-label={`Annotate ${label}`}
      className="space-y-2 rounded-lg border border-zinc-200 bg-white p-2.5 dark:border-zinc-700 dark:bg-zinc-900"
    >
      <fieldset className="flex flex-wrap gap-1.5">
        <legend className="sr-only">Label</legend>
        {labels.map((option) => (
          <label
            key={option}
            className="cursor-pointer rounded-full border border-zinc-300 px-2 py-0.5 text-xs text-zinc-700 has-[:checked]:border-zinc-900 has-[:checked]:bg-zinc-900 has-[:checked]:text-white has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-sky-600 dark:border-zinc-600 dark:text-zinc-300 dark:has-[:checked]:border-zinc-100 dark:has-[:checked]:bg-zinc-100 dark:has-[:checked]:text-zinc-900"
          >
            <input
              type="radio"
              name={`label-${eventId}`}
              value={option}
              checked={choice === option}
              onChange={() => setChoice(option)}
              className="sr-only"
            />
            {option}
          </label>
        ))}
      </fieldset>
      <label className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
        Note
        <textarea
          value={note}
          onChange={(event) => setNote(event.target.value)}
          maxLength={MAX_NOTE_CHARS}
          rows={2}
          // A reviewer opened the form to write: the note is where they start.
          autoFocus
          className="mt-1 block w-full rounded-md border border-zinc-300 bg-white px-2 py-1 text-[13px] font-normal dark:border-zinc-700 dark:bg-zinc-950"
        />
      </label>
      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={working}
          className="rounded-md bg-zinc-900 px-2.5 py-1 text-xs font-medium text-white disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900"
        >
          Save annotation
        </button>
        <button
          type="button"
          onClick={onDone}
          className="rounded-md px-2.5 py-1 text-xs text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
        {problem && (
          <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
            {problem}
          </p>
        )}
      </div>
    </form>
  );
}
