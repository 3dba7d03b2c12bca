"use client";

import { Sparkles } from "lucide-react";
import { memo } from "react";
import type { ConversationFile } from "@/lib/api/client";
import { answerOf, callCount, type RunView } from "@/lib/trace/state";
import { RunStatusBadge } from "@/components/trace/RunStatusBadge";
import { Markdown } from "@/components/ui/Markdown";
import { MessageFiles } from "./FileChip";

export interface ChatMessage {
  id: string;
  runId: string | null;
  role: "user" | "assistant";
  content: string;
  /** The files a user message attached. */
  files?: ConversationFile[];
}

/** The conversation as a person reads it: each message, then the agent's answer to it. */
export function MessageList({
  messages,
  runs,
  runStarts,
}: {
  messages: ChatMessage[];
  runs: RunView[];
  runStarts: Record<string, string>;
}) {
  const runById = new Map(runs.map((run) => [run.runId, run]));
  return (
    <ol className="mx-auto flex w-full max-w-3xl flex-col gap-6 px-4 py-6" aria-label="Messages">
      {messages
        .filter((message) => message.role === "user")
        .map((message) => {
          const run = message.runId ? runById.get(message.runId) : undefined;
          return (
            <li key={message.id} className="flex flex-col gap-3">
              <div
                className="ml-auto max-w-[85%] whitespace-pre-wrap rounded-2xl rounded-br-md bg-zinc-900 px-4 py-2.5 text-[15px] leading-relaxed text-white dark:bg-zinc-100 dark:text-zinc-900"
                data-testid="user-message"
              >
                {message.content}
              </div>
              {message.files && message.files.length > 0 && <MessageFiles files={message.files} />}
              {run && <Answer run={run} startedAt={runStarts[run.runId]} />}
            </li>
          );
        })}
    </ol>
  );
}

const Answer = memo(function Answer({ run, startedAt }: { run: RunView; startedAt?: string }) {
  const text = answerOf(run);
  const calls = callCount(run);
  return (
    <div className="flex gap-3" data-testid="assistant-message" data-run-status={run.status}>
      <span
        aria-hidden
        className="mt-1 grid size-7 shrink-0 place-items-center rounded-lg bg-gradient-to-br from-emerald-500 to-teal-600 text-white shadow-sm"
      >
        <Sparkles className="size-4" />
      </span>
      <div className="min-w-0 flex-1">
        {text ? (
          <Markdown text={text} />
        ) : (
          run.status === "running" && <p className="text-sm text-zinc-500 dark:text-zinc-400">Thinking…</p>
        )}
        {run.error && (
          <p
            role="alert"
            className="mt-2 rounded-lg border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900 dark:bg-rose-950/40 dark:text-rose-100"
          >
            {run.error.message}
          </p>
        )}
        <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
          <RunStatusBadge run={run} startedAt={startedAt} />
          {run.profile && <span data-testid="run-profile">profile {run.profile}</span>}
          {run.steps.length > 0 && (
            <span>
              {run.steps.length} step{run.steps.length === 1 ? "" : "s"} · {calls} tool call{calls === 1 ? "" : "s"}
            </span>
          )}
        </div>
      </div>
    </div>
  );
});
