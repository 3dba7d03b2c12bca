import { CircleCheck, CircleDashed, CircleDot, CircleSlash } from "lucide-react";
import type { PlanItemStatus } from "@/lib/contract/events";
import type { RunView } from "@/lib/trace/state";
import { cardAnchor } from "./card-anchor";

/** Each status in words and an icon: the checklist never says it by colour alone. */
const STATUS: Record<PlanItemStatus, { label: string; icon: typeof CircleCheck; className: string }> = {
  pending: { label: "Pending", icon: CircleDashed, className: "text-zinc-500 dark:text-zinc-400" },
  in_progress: { label: "In progress", icon: CircleDot, className: "text-sky-700 dark:text-sky-300" },
  done: { label: "Done", icon: CircleCheck, className: "text-emerald-700 dark:text-emerald-300" },
  skipped: { label: "Skipped", icon: CircleSlash, className: "text-amber-700 dark:text-amber-300" },
};

/**
 * A plan-first run's plan, pinned at the top of its run and ticking as update_plan calls come in; each item links
 * to the step that last changed it.
 */
export function PlanChecklist({ run, index }: { run: RunView; index: number }) {
  const { plan } = run;
  if (!plan) return null;
  const done = plan.steps.filter((item) => item.status === "done").length;
  const stepCard = (step?: number) => run.steps.findLast((view) => view.step === step)?.eventId;
  return (
    <section
      aria-label={`Plan of run ${index + 1}`}
      data-testid="plan-checklist"
      className="sticky top-0 z-10 mb-3 rounded-lg border border-violet-200 bg-violet-50 px-3 py-2 text-sm text-violet-950 shadow-sm dark:border-violet-900 dark:bg-violet-950 dark:text-violet-50"
    >
      <h4 className="flex items-baseline gap-2 text-xs font-semibold uppercase tracking-wide">
        Plan
        <span className="font-normal normal-case tracking-normal text-violet-800 dark:text-violet-200">
          {done} of {plan.steps.length} done
        </span>
      </h4>
      <ol className="mt-1.5 space-y-1">
        {plan.steps.map((item) => {
          const status = STATUS[item.status];
          const card = stepCard(item.step);
          return (
            <li key={item.id} data-testid="plan-item" data-status={item.status} className="flex items-start gap-2">
              <status.icon className={`mt-0.5 size-4 shrink-0 ${status.className}`} aria-hidden />
              <div className="min-w-0 flex-1">
                <span className="sr-only">{status.label}: </span>
                <span className={item.status === "skipped" ? "line-through" : undefined}>{item.title}</span>
                {item.status === "in_progress" && (
                  <span className="ml-1.5 text-xs text-sky-800 dark:text-sky-200" aria-hidden>
                    (in progress)
                  </span>
                )}
                {item.detail && <p className="text-xs text-violet-900/80 dark:text-violet-100/80">{item.detail}</p>}
                {item.note && <p className="text-xs italic text-violet-900 dark:text-violet-100">{item.note}</p>}
              </div>
              {card !== undefined && (
                <a
                  href={`#${cardAnchor(card)}`}
                  aria-label={`${item.title}: step ${item.step}`}
                  className="shrink-0 rounded px-1 text-xs text-violet-800 underline hover:bg-violet-100 dark:text-violet-200 dark:hover:bg-violet-900"
                >
                  Step {item.step}
                </a>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
