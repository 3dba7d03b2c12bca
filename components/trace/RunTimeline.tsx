import { memo } from "react";
import type { RunView } from "@/lib/trace/state";
import { CompareLink } from "@/components/compare/CompareLink";
import { cardAnchor } from "./CardActions";
import { useFindCard, useRunHidden } from "./findStore";
import { Marked } from "./Marked";
import { PlanChecklist } from "./PlanChecklist";
import { RerunButton } from "./RerunButton";
import { RunOtlpLink } from "./RunOtlpLink";
import { RunStatusBadge } from "./RunStatusBadge";
import { StepView } from "./StepView";
import { RunVerdicts } from "./RunVerdicts";
import { Waterfall } from "./Waterfall";

/** The last cards of the latest run are built at once; the rest of a long trace is built as it scrolls into view. */
const EAGER_CARDS = 6;

export const RunTimeline = memo(function RunTimeline({
  run,
  index,
  startedAt,
  latest,
}: {
  run: RunView;
  index: number;
  startedAt?: string;
  latest: boolean;
}) {
  const live = run.status === "running";
  const hidden = useRunHidden(run.runId);
  const errorCard = useFindCard(run.error?.eventId ?? -1);
  // Index of the first card built at once, per step, counting EAGER_CARDS back from the end of the run.
  let budget = latest ? EAGER_CARDS : 0;
  const eagerFrom = run.steps
    .slice()
    .reverse()
    .map((step) => {
      const from = Math.max(0, step.calls.length - budget);
      budget = Math.max(0, budget - step.calls.length);
      return from;
    })
    .reverse();
  return (
    <section
      aria-label={`Run ${index + 1}`}
      className="border-b border-zinc-200 px-4 py-4 last:border-b-0 dark:border-zinc-800"
      data-testid="trace-run"
      hidden={hidden}
    >
      <header className="mb-3 flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-semibold text-zinc-800 dark:text-zinc-100">Run {index + 1}</h3>
        {run.model && (
          <span className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
            {run.model}
          </span>
        )}
        <CompareLink runId={run.runId} index={index} />
        <RerunButton run={run} index={index} />
        <span className="ml-auto flex items-center gap-2">
          {!live && <RunOtlpLink runId={run.runId} index={index} />}
          <RunStatusBadge run={run} startedAt={startedAt} />
        </span>
        <div className="basis-full">
          <RunVerdicts run={run} runLabel={`run ${index + 1}`} />
        </div>
      </header>
      <PlanChecklist run={run} index={index} />
      <Waterfall run={run} index={index} />
      {run.steps.length > 0 && (
        <ol className="space-y-4 border-l border-dashed border-zinc-200 pl-0 dark:border-zinc-800 [&>li]:-ml-2">
          {run.steps.map((step, stepIndex) => (
            <StepView
              // A run taken over by another instance may start its interrupted step again: same number, new card.
              key={`${step.step}-${stepIndex}`}
              step={step}
              annotations={run.annotations}
              live={live && stepIndex === run.steps.length - 1}
              eagerFrom={live ? 0 : eagerFrom[stepIndex]}
            />
          ))}
        </ol>
      )}
      {run.resumed && (
        <p
          role="status"
          className="mt-3 rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100"
        >
          {run.resumed}
        </p>
      )}
      {run.error && (
        <p
          id={cardAnchor(run.error.eventId)}
          role="alert"
          className={`mt-3 rounded-lg border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900 dark:bg-rose-950/40 dark:text-rose-100 ${errorCard.className}`}
          {...errorCard.attributes}
        >
          <Marked text={run.error.message} mark={errorCard.mark} />
        </p>
      )}
    </section>
  );
});
