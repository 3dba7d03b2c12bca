"use client";

import { BookmarkPlus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api, problemText, type Execution, type Tool } from "@/lib/api/client";

/** A tool's recent calls; one that succeeded can be kept as an example, which the latest version must pass. */
export function ExecutionsTable({
  toolId,
  executions,
  onKept,
}: {
  toolId: string;
  executions: Execution[];
  onKept: (tool: Tool) => void;
}) {
  const [kept, setKept] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [working, setWorking] = useState<string | null>(null);

  const keep = async (execution: Execution) => {
    if (working) return;
    setWorking(execution.id);
    setKept(null);
    setProblem(null);
    try {
      const tool = await api.keepExample(toolId, { executionId: execution.id });
      onKept(tool);
      setKept(`Kept the call of ${new Date(execution.createdAt).toLocaleString()} as an example of v${tool.version}.`);
    } catch (error) {
      setProblem(problemText(error));
    } finally {
      setWorking(null);
    }
  };

  if (executions.length === 0) return <p className="text-sm text-zinc-600 dark:text-zinc-400">No calls yet.</p>;
  return (
    <>
      <div tabIndex={0} role="region" aria-label="Recent calls" className="overflow-x-auto">
        <table className="w-full text-left text-sm" data-testid="tool-executions">
          <thead className="text-xs text-zinc-600 dark:text-zinc-400">
            <tr>
              <th className="py-1 pr-3 font-medium">When</th>
              <th className="py-1 pr-3 font-medium">Version</th>
              <th className="py-1 pr-3 font-medium">From</th>
              <th className="py-1 pr-3 font-medium">Outcome</th>
              <th className="py-1 pr-3 font-medium">Time</th>
              <th className="py-1 pr-3 font-medium">Input</th>
              <th className="py-1 font-medium">
                <span className="sr-only">Example</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {executions.map((execution) => (
              <tr key={execution.id}>
                <td className="py-1.5 pr-3 whitespace-nowrap">{new Date(execution.createdAt).toLocaleString()}</td>
                <td className="py-1.5 pr-3">v{execution.version ?? "?"}</td>
                <td className="py-1.5 pr-3">
                  {execution.conversationId ? (
                    <Link
                      href={`/c/${execution.conversationId}`}
                      className="text-sky-700 hover:underline dark:text-sky-400"
                    >
                      chat
                    </Link>
                  ) : (
                    execution.source
                  )}
                </td>
                <td className="py-1.5 pr-3">{execution.status}</td>
                <td className="py-1.5 pr-3 whitespace-nowrap">{execution.durationMs} ms</td>
                <td className="max-w-64 truncate py-1.5 pr-3 font-mono text-xs">{JSON.stringify(execution.input)}</td>
                <td className="py-1.5 text-right">
                  {/* Only a call that succeeded has an output to expect. */}
                  {execution.status === "succeeded" && (
                    <button
                      type="button"
                      aria-disabled={working !== null}
                      onClick={() => void keep(execution)}
                      className="inline-flex items-center gap-1 whitespace-nowrap rounded-md px-2 py-1 text-xs font-medium text-emerald-800 hover:bg-emerald-50 aria-disabled:opacity-60 dark:text-emerald-300 dark:hover:bg-emerald-950/40"
                    >
                      <BookmarkPlus className="size-3.5" aria-hidden />
                      {working === execution.id ? "Keeping…" : "Keep as example"}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p role="status" className="mt-2 text-sm text-emerald-800 empty:mt-0 dark:text-emerald-300">
        {kept}
      </p>
      {problem && (
        <p role="alert" className="mt-2 whitespace-pre-wrap text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
    </>
  );
}
