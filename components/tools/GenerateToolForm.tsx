"use client";

import { Square, TriangleAlert, WandSparkles } from "lucide-react";
import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import { Button } from "@/components/ui/Button";
import { DependentChecks } from "./DependentChecks";
import { attemptStatus, GenerationAttempt } from "./GenerationAttempt";
import { LANGUAGE_NAMES, TOOL_LANGUAGES } from "./tool-language";
import { useToolGeneration, type AttemptView, type GenerationPhase } from "./useToolGeneration";

/** The live status: the latest attempt's, or a word before the first one and after a cancel. */
function statusText(attempts: AttemptView[], phase: GenerationPhase): string {
  const last = attempts.at(-1);
  if (last) return attemptStatus(last, phase);
  if (phase === "running") return "Starting…";
  return phase === "cancelled" ? "Cancelled." : "";
}

/**
 * Describe a tool, and the model writes it: every attempt shows as it streams (the code, then what failed, then the
 * repair), and the new tool's page opens once one passes. Escape cancels a run, or closes the form.
 */
export function GenerateToolForm({ id, onClose }: { id: string; onClose: () => void }) {
  const fieldId = useId();
  const { attempts, phase, problem, saved, start, cancel } = useToolGeneration();
  const [description, setDescription] = useState("");
  const [name, setName] = useState("");
  const [language, setLanguage] = useState<ToolLanguage>("javascript");
  const descriptionRef = useRef<HTMLTextAreaElement>(null);
  // Once the tool is made its page is opening: the form takes no second run meanwhile.
  const busy = phase === "running" || phase === "created";

  // Opened: typing starts in the description.
  useEffect(() => descriptionRef.current?.focus(), []);
  // The Cancel button goes when a run ends: the focus it had comes back to the description, not to the page's start.
  useEffect(() => {
    if (!busy && document.activeElement === document.body) descriptionRef.current?.focus();
  }, [busy]);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    if (busy) return;
    // Absent is JavaScript: a JavaScript request stays the one it was before there was a choice.
    void start({
      description,
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(language === "javascript" ? {} : { language }),
    });
  };
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    if (busy) cancel();
    else onClose();
  };

  const input =
    "mt-1 w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm read-only:opacity-70 dark:border-zinc-700 dark:bg-zinc-900";
  return (
    <section
      id={id}
      aria-labelledby={`${fieldId}-title`}
      onKeyDown={onKeyDown}
      className="mt-3 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800"
    >
      <h2 id={`${fieldId}-title`} className="text-base font-semibold">
        Create a tool from a description
      </h2>
      <form onSubmit={submit} className="mt-3 space-y-3">
        <div>
          <label htmlFor={`${fieldId}-description`} className="block text-sm font-medium">
            Description
          </label>
          <p id={`${fieldId}-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
            What the tool does, its inputs and its output. The model writes it with examples, which must pass before it
            is kept.
          </p>
          <textarea
            ref={descriptionRef}
            id={`${fieldId}-description`}
            aria-describedby={`${fieldId}-hint`}
            required
            maxLength={4000}
            rows={3}
            readOnly={busy}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            placeholder="e.g. Convert a temperature from Celsius to Fahrenheit"
            className={input}
          />
        </div>
        <div>
          <label htmlFor={`${fieldId}-name`} className="block text-sm font-medium">
            Name (optional)
          </label>
          <input
            id={`${fieldId}-name`}
            readOnly={busy}
            value={name}
            onChange={(event) => setName(event.target.value)}
            placeholder="e.g. celsius_to_fahrenheit"
            className={`${input} max-w-xs font-mono`}
          />
        </div>
        {/* Read-only rather than disabled while a run lasts, as the fields above: a radio keeps its focus. */}
        <fieldset
          role="radiogroup"
          aria-labelledby={`${fieldId}-language`}
          aria-readonly={busy}
          className="aria-readonly:opacity-70"
        >
          <legend id={`${fieldId}-language`} className="text-sm font-medium">
            Language
          </legend>
          <div className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
            {TOOL_LANGUAGES.map((choice) => (
              <label key={choice} className="flex items-center gap-1.5 text-sm">
                <input
                  type="radio"
                  name={`${fieldId}-language`}
                  value={choice}
                  checked={language === choice}
                  onChange={() => !busy && setLanguage(choice)}
                  className="size-4 accent-emerald-700"
                />
                {LANGUAGE_NAMES[choice]}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" aria-disabled={busy}>
            <WandSparkles className="size-4" aria-hidden /> {busy ? "Writing…" : "Write the tool"}
          </Button>
          {phase === "running" && (
            <Button onClick={cancel}>
              <Square className="size-3.5 fill-current" aria-hidden /> Cancel
            </Button>
          )}
        </div>
      </form>
      <p
        role="status"
        className="mt-3 text-sm empty:mt-0 text-zinc-700 dark:text-zinc-300"
        data-testid="generation-status"
      >
        {statusText(attempts, phase)}
      </p>
      {problem && (
        <p role="alert" className="mt-2 whitespace-pre-wrap text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      {saved?.dependents && (
        <div
          role="alert"
          className="mt-3 rounded-xl border border-rose-300 p-3 dark:border-rose-800"
          data-testid="generation-dependents"
        >
          <p className="flex items-center gap-1 text-sm font-medium text-rose-800 dark:text-rose-300">
            <TriangleAlert className="size-4 shrink-0" aria-hidden />
            <span>
              <code className="font-mono">{saved.name}</code> v{saved.version} was saved, and tools that use it now fail
              their examples.
            </span>
          </p>
          <div className="mt-2">
            <DependentChecks dependents={saved.dependents} />
          </div>
          <Link
            href={`/tools/${saved.id}`}
            className="mt-2 inline-block text-sm font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
          >
            Open {saved.name}&apos;s page
          </Link>
        </div>
      )}
      {attempts.length > 0 && (
        <ol aria-label="Attempts" className="mt-3 space-y-3">
          {attempts.map((view) => (
            <GenerationAttempt key={view.attempt} view={view} phase={phase} />
          ))}
        </ol>
      )}
    </section>
  );
}
