"use client";

import { FlaskConical } from "lucide-react";
import { useState } from "react";
import { api, problemText, type Tool, type ToolTestRun } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { ExampleList, OutcomeList } from "./Examples";

function summary({ version, passed, outcomes }: ToolTestRun): string {
  const failed = outcomes.filter((outcome) => !outcome.passed).length;
  if (passed)
    return outcomes.length === 1
      ? `The example passed on v${version}.`
      : `All ${outcomes.length} examples passed on v${version}.`;
  return `${failed} of ${outcomes.length} examples failed on v${version}.`;
}

/** A version's examples, and a button that runs them again against its code: each outcome is announced. */
export function ToolExamples({ tool }: { tool: Tool }) {
  const [run, setRun] = useState<ToolTestRun | null>(null);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const runExamples = async () => {
    if (running) return;
    setRunning(true);
    setProblem(null);
    try {
      setRun(await api.testTool(tool.id, tool.version));
    } catch (error) {
      setProblem(problemText(error));
    } finally {
      setRunning(false);
    }
  };

  if (tool.examples.length === 0) {
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        No examples yet, so nothing checks what this tool returns. Keep a call that succeeded as an example (in Recent
        calls, below).
      </p>
    );
  }
  return (
    <>
      <ExampleList examples={tool.examples} />
      <Button aria-disabled={running} onClick={() => void runExamples()} className="mt-3">
        <FlaskConical className="size-4" aria-hidden /> {running ? "Running examples…" : "Run examples"}
      </Button>
      <div aria-live="polite" className="mt-3 space-y-2" data-testid="example-run">
        {run && (
          <>
            <p className="text-sm font-medium">{summary(run)}</p>
            <OutcomeList outcomes={run.outcomes} />
          </>
        )}
      </div>
      {problem && (
        <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
    </>
  );
}
