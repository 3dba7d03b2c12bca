"use client";

import { useState, type FormEvent } from "react";
import { api, problemText } from "@/lib/api/client";

/** The name the viewer signs annotations and verdicts with; without one they are "Owner" or "Reviewer N". */
export function DisplayName({ initial }: { initial: string }) {
  const [name, setName] = useState(initial);
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      const saved = await api.setDisplayName(name);
      setName(saved.name);
      setStatus(saved.name ? `Your reviews are signed ${saved.name}.` : "Your reviews are signed Owner or Reviewer N.");
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  return (
    <section aria-labelledby="display-name-title" className="mb-8">
      <h2 id="display-name-title" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
        Display name
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Shown on the annotations and verdicts you give on traces, yours and those shared with you. Leave it empty to be
        &ldquo;Owner&rdquo; on your own and &ldquo;Reviewer 1, 2 …&rdquo; on others&rsquo;.
      </p>
      <form onSubmit={(event) => void save(event)} className="mt-3 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="font-medium text-zinc-800 dark:text-zinc-200">Your display name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={60}
            className="mt-1 block w-72 rounded-md border border-zinc-300 bg-white px-2 py-1.5 dark:border-zinc-700 dark:bg-zinc-900"
          />
        </label>
        <button
          type="submit"
          className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white dark:bg-zinc-100 dark:text-zinc-900"
        >
          Save name
        </button>
      </form>
      <p role="status" className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">
        {status}
      </p>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
    </section>
  );
}
