"use client";

import { FlaskConical } from "lucide-react";
import { useState, type FormEvent } from "react";
import { api, problemText } from "@/lib/api/client";
import type { ToolCallView } from "@/lib/trace/state";
import { useTraceViewer } from "./TraceContext";

/**
 * On an annotated call of the conversation's own tool that went wrong, for the owner: keep it as a failing example,
 * with the output it should have given. The tool's next version must pass it (lib/tools/library/versions.ts).
 */
export function KeepFailingExample({ call }: { call: ToolCallView }) {
  const viewer = useTraceViewer();
  const [open, setOpen] = useState(false);
  const [expected, setExpected] = useState("");
  const [outcome, setOutcome] = useState<{ kept: boolean; text: string } | null>(null);
  const toolId = viewer?.toolIdOf(call.name);
  if (!viewer?.owner || !toolId || outcome?.kept) {
    return outcome?.kept ? (
      <p role="status" className="text-xs text-emerald-800 dark:text-emerald-300">
        {outcome.text}
      </p>
    ) : null;
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let expectedOutput: unknown;
    try {
      expectedOutput = JSON.parse(expected);
    } catch {
      return setOutcome({
        kept: false,
        text: 'The expected output must be JSON: a number, "a string", {"an": "object"} …',
      });
    }
    try {
      await api.keepExample(toolId, {
        input: call.input as Record<string, unknown>,
        expected_output: expectedOutput,
        failing: true,
      });
      setOutcome({ kept: true, text: `Kept as a failing example of ${call.name}: its next version must pass it.` });
    } catch (error) {
      setOutcome({ kept: false, text: problemText(error) });
    }
  };
  if (!open)
    return (
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-200/70 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
      >
        <FlaskConical className="size-3.5" aria-hidden /> Keep as a failing example
      </button>
    );
  return (
    <form
      onSubmit={(event) => void submit(event)}
      aria-label={`Keep this ${call.name} call as a failing example`}
      className="space-y-2 rounded-lg border border-zinc-200 bg-white p-2.5 dark:border-zinc-700 dark:bg-zinc-900"
    >
      <label className="block text-xs font-medium text-zinc-700 dark:text-zinc-300">
        What it should have returned (JSON)
        <textarea
          value={expected}
          onChange={(event) => setExpected(event.target.value)}
          rows={2}
          required
          // Opened to write the expected output: that is where the owner starts.
          autoFocus
          className="mt-1 block w-full rounded-md border border-zinc-300 bg-white px-2 py-1 font-mono text-[12px] font-normal dark:border-zinc-700 dark:bg-zinc-950"
        />
      </label>
      <div className="flex items-center gap-2">
        <button
          type="submit"
          className="rounded-md bg-zinc-900 px-2.5 py-1 text-xs font-medium text-white dark:bg-zinc-100 dark:text-zinc-900"
        >
          Keep it
        </button>
        <button
          type="button"
          onClick={() => setOpen(false)}
          className="rounded-md px-2.5 py-1 text-xs text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
        {outcome && (
          <p role="alert" className="text-xs text-rose-700 dark:text-rose-300">
            {outcome.text}
          </p>
        )}
      </div>
    </form>
  );
}
