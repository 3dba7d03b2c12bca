"use client";

import { Library } from "lucide-react";
import Link from "next/link";
import { createContext, useContext, useState } from "react";
import { api, problemText } from "@/lib/api/client";

/** The conversation on screen when it is the viewer's own (a shared page's is not): only then can they act on it. */
export const OwnTraceContext = createContext<string | null>(null);

/** On an emerald card: open the tool's page, or add it to the library so every conversation gets it. */
export function LibraryActions({ toolId, name }: { toolId: string; name: string }) {
  const own = useContext(OwnTraceContext) !== null;
  const [state, setState] = useState<"idle" | "working" | "added">("idle");
  const [problem, setProblem] = useState<string | null>(null);
  if (!own) return null;
  const add = async () => {
    setState("working");
    try {
      await api.changeTool(toolId, { scope: "library" });
      setState("added");
    } catch (error) {
      setProblem(problemText(error));
      setState("idle");
    }
  };
  return (
    <div className="mt-2 flex flex-wrap items-center gap-3 text-xs" data-testid="library-actions">
      {state === "added" ? (
        <span
          role="status"
          className="inline-flex items-center gap-1 font-medium text-emerald-900 dark:text-emerald-200"
        >
          <Library className="size-3.5" aria-hidden /> In the library
        </span>
      ) : (
        <button
          type="button"
          disabled={state === "working"}
          onClick={() => void add()}
          className="inline-flex items-center gap-1 rounded-md border border-emerald-400 px-2 py-1 font-medium text-emerald-900 hover:bg-emerald-100 disabled:opacity-60 dark:border-emerald-700 dark:text-emerald-200 dark:hover:bg-emerald-900/50"
        >
          <Library className="size-3.5" aria-hidden /> Add to library <span className="sr-only">: {name}</span>
        </button>
      )}
      <Link
        href={`/tools/${toolId}`}
        className="font-medium text-emerald-900 underline-offset-2 hover:underline dark:text-emerald-200"
      >
        Open {name}&apos;s page
      </Link>
      {problem && (
        <span role="alert" className="text-rose-700 dark:text-rose-300">
          {problem}
        </span>
      )}
    </div>
  );
}
