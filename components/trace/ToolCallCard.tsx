import { WrittenFiles } from "./WrittenFiles";
import { CheckCircle2, Loader2, Scissors, XCircle } from "lucide-react";
import { memo } from "react";
import { planOf, type ToolCallView } from "@/lib/trace/state";
import { JsonView } from "@/components/ui/JsonView";
import { ToolRegisteredCard } from "@/components/tools/ToolRegisteredCard";
import { ToolRejectedCard } from "@/components/tools/ToolRejectedCard";
import { registrationLanguage } from "@/components/tools/tool-language";
import { ApprovalPrompt } from "./ApprovalPrompt";
import { CardActions, cardAnchor } from "./CardActions";
import { CardAnnotations } from "./Annotations";
import { KeepFailingExample } from "./KeepFailingExample";
import type { Annotation } from "@/lib/contract/events";
import { useCardMark, useCardOpened } from "./findStore";
import { Marked } from "./Marked";
import { PlanCard } from "./PlanCard";
import { ResultView } from "./ResultView";

const statusIcon = {
  running: <Loader2 className="size-4 animate-spin text-sky-600 dark:text-sky-400" aria-label="Running" />,
  ok: <CheckCircle2 className="size-4 text-emerald-600 dark:text-emerald-400" aria-label="Succeeded" />,
  error: <XCircle className="size-4 text-rose-600 dark:text-rose-400" aria-label="Failed" />,
};

/**
 * Every tool call, whichever tool: its name, input, then output or error, duration and truncation. What a call
 * produced beyond its result (a registered or rejected tool) is shown by event type, never by tool name. The one
 * card chosen by name is a plan: a think call acts on nothing, its input is all it says, and its name is a
 * reserved built-in's (planOf), so no registered tool's call is ever taken for one.
 */
export const ToolCallCard = memo(function ToolCallCard({
  call,
  annotations,
}: {
  call: ToolCallView;
  annotations?: Annotation[];
}) {
  const mark = useCardMark(call.eventId);
  // A card navigated to shows what it folds; the input's view starts again unfolded (its fold is its own state).
  const opened = useCardOpened(call.eventId);
  const plan = planOf(call);
  if (plan !== undefined) return <PlanCard thought={plan} />;
  return (
    <article
      id={cardAnchor(call.eventId)}
      data-testid="tool-call"
      data-tool={call.name}
      data-status={call.status}
      className="rounded-xl border border-zinc-200 bg-white shadow-sm dark:border-zinc-800 dark:bg-zinc-900/60"
    >
      <header className="flex items-center gap-2 border-b border-zinc-100 px-3 py-2 dark:border-zinc-800">
        {statusIcon[call.status]}
        <code className="font-mono text-[13px] font-semibold text-zinc-900 dark:text-zinc-100">
          <Marked text={call.name} mark={mark} />
        </code>
        <span className="ml-auto flex items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
          {call.server && (
            <span
              className="rounded-full bg-sky-100 px-2 py-0.5 font-medium text-sky-900 dark:bg-sky-900/40 dark:text-sky-200"
              title="The MCP server that answered this call"
            >
              via {call.server}
            </span>
          )}
          {call.truncated && (
            <span
              className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
              title="The output was longer than the limit and was cut"
            >
              <Scissors className="size-3" aria-hidden /> truncated
            </span>
          )}
          {call.durationMs !== undefined && <span>{formatDuration(call.durationMs)}</span>}
          <CardActions eventId={call.eventId} label={`the ${call.name} call`} />
        </span>
      </header>
      <div className="space-y-3 p-3">
        <JsonView key={String(opened)} value={call.input} label="Input" foldLarge={!opened} />
        {call.approval && <ApprovalPrompt call={call} />}
        {call.status === "ok" && <ResultView value={call.output} callName={call.name} />}
        {call.status === "ok" && call.logs && call.logs.length > 0 && (
          <div>
            <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
              Printed
            </span>
            <pre
              tabIndex={0}
              aria-label={`What the ${call.name} call printed`}
              className="mt-1 max-h-72 overflow-auto outline-none focus-visible:ring-2 focus-visible:ring-sky-600 whitespace-pre-wrap break-words rounded-md bg-zinc-50 px-2.5 py-2 font-mono text-[12px] leading-5 text-zinc-900 dark:bg-zinc-900 dark:text-zinc-100"
            >
              <Marked text={call.logs.join("\n")} mark={mark} />
            </pre>
          </div>
        )}
        {call.images?.map((image, index) => (
          // eslint-disable-next-line @next/next/no-img-element -- a data URL from the log, not an asset to optimise
          <img
            key={index}
            src={`data:${image.mimeType};base64,${image.data}`}
            alt={`Image ${index + 1} of the ${call.name} result`}
            className="max-h-64 max-w-full rounded-md border border-zinc-200 dark:border-zinc-800"
          />
        ))}
        <WrittenFiles call={call} />
        {call.status === "error" && (
          <div>
            <span className="text-[11px] font-medium uppercase tracking-wide text-rose-700 dark:text-rose-400">
              Error
            </span>
            <pre
              tabIndex={0}
              aria-label="Error"
              className="mt-1 max-h-72 overflow-auto outline-none focus-visible:ring-2 focus-visible:ring-sky-600 whitespace-pre-wrap break-words rounded-md bg-rose-50 px-2.5 py-2 font-mono text-[12px] leading-5 text-rose-900 dark:bg-rose-950/40 dark:text-rose-100"
            >
              <Marked text={call.error ?? ""} mark={mark} />
            </pre>
          </div>
        )}
        {call.nested && call.nested.length > 0 && (
          <section
            aria-label={`Tools the ${call.name} call called`}
            className="space-y-2 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700"
          >
            <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
              Called
            </span>
            {call.nested.map((inner) => (
              <ToolCallCard key={inner.callId} call={inner} />
            ))}
          </section>
        )}
        {call.registered && <ToolRegisteredCard tool={call.registered} codeOpen={opened} />}
        {call.rejected && <ToolRejectedCard rejected={call.rejected} language={registrationLanguage(call.input)} />}
        <CardAnnotations eventId={call.eventId} annotations={annotations} label={`the ${call.name} call`} />
        {call.status === "error" && annotations && annotations.length > 0 && <KeepFailingExample call={call} />}
      </div>
    </article>
  );
});

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
