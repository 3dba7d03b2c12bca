import { ExternalLink, GitCompareArrows } from "lucide-react";
import { PageTitle } from "@/components/ui/PageTitle";
import { cardAnchor } from "@/components/trace/card-anchor";
import {
  CALL_FIELDS,
  compareField,
  comparisonSummary,
  type CallPair,
  type FieldComparison,
  type PairKind,
  type StepPair,
} from "@/lib/trace/compare";
import type { ComparedRun, ComparisonPage, RunFigures } from "@/lib/conversations/comparison";
import { formatMs, formatTokens, formatUsd } from "@/lib/trace/timing";
import type { ToolCallView } from "@/lib/trace/state";
import { DiffersBadge, FieldDiff } from "./FieldDiff";
import { RunPicker } from "./RunPicker";

type Side = "left" | "right";

const KIND_LABELS: Record<PairKind, string> = {
  same: "Same",
  differs: "Differs",
  "only-left": "Only in the left run",
  "only-right": "Only in the right run",
};

function KindBadge({ kind }: { kind: PairKind }) {
  if (kind !== "same") return <DiffersBadge>{KIND_LABELS[kind]}</DiffersBadge>;
  return (
    <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300">
      Same
    </span>
  );
}

/** Two runs side by side, one row per step, with what differs marked; `action` is the page the picker reloads. */
export function ComparisonView({ page, action }: { page: ComparisonPage; action: string }) {
  const { left, right, comparison } = page;
  return (
    <>
      <PageTitle icon={GitCompareArrows} title="Compare runs">
        Two runs side by side, step by step: calls are paired by name and position, and each name, input, output or
        error that differs is marked.
      </PageTitle>
      <RunPicker groups={page.groups} left={left.choice.runId} right={right?.choice.runId} action={action} />
      {!right || !comparison ? (
        <p className="mt-6 text-sm text-zinc-600 dark:text-zinc-400">
          There is no other run to compare with yet: send another message, or continue from one of its steps.
        </p>
      ) : (
        <>
          <p
            data-testid="compare-summary"
            className="mt-6 rounded-lg border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm font-medium dark:border-zinc-800 dark:bg-zinc-900"
          >
            {comparisonSummary(comparison)}
          </p>
          <div className="mt-4 grid grid-cols-2 gap-4">
            <RunHeading run={left} side="left" />
            <RunHeading run={right} side="right" />
          </div>
          <ol className="mt-4 space-y-4">
            {comparison.steps.map((step) => (
              <StepRow key={step.position} step={step} left={left} right={right} />
            ))}
          </ol>
        </>
      )}
    </>
  );
}

function RunHeading({ run, side }: { run: ComparedRun; side: Side }) {
  return (
    <div className="min-w-0 rounded-lg border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">
      <p className="text-[11px] font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
        {side === "left" ? "Left run" : "Right run"}
      </p>
      <p className="truncate font-medium">{run.choice.label}</p>
      <p className="text-zinc-600 dark:text-zinc-400">
        <a href={run.pagePath} className="underline underline-offset-2 hover:text-zinc-900 dark:hover:text-zinc-100">
          {run.conversationLabel}
        </a>
        {" · "}
        {run.view.status}
        {run.view.model && ` · ${run.view.model}`}
        {run.view.planFirst && " · planned first"}
      </p>
      <p data-testid="compare-run-figures" className="text-zinc-600 dark:text-zinc-400">
        {runFigures(run.figures)}
      </p>
    </div>
  );
}

/** "3 steps · 2 tool calls · 1.20 s · 1,800 → 120 tokens · $0.0042": time once it ended, cost when priced. */
function runFigures({ steps, calls, durationMs, tokens, costUsd }: RunFigures): string {
  return [
    `${steps} ${steps === 1 ? "step" : "steps"}`,
    `${calls} tool ${calls === 1 ? "call" : "calls"}`,
    durationMs !== undefined && formatMs(durationMs),
    `${formatTokens(tokens.input)} → ${formatTokens(tokens.output)} tokens`,
    costUsd !== undefined && formatUsd(costUsd),
  ]
    .filter(Boolean)
    .join(" · ");
}

function StepRow({ step, left, right }: { step: StepPair; left: ComparedRun; right: ComparedRun }) {
  const headingId = `step-${step.position}`;
  const text = step.text ?? plainField((step.left ?? step.right)!.text);
  const hasText = Boolean(step.left?.text || step.right?.text);
  return (
    <li
      aria-labelledby={headingId}
      data-testid="compare-step"
      data-kind={step.kind}
      className={`rounded-xl border p-3 ${step.kind === "same" ? "border-zinc-200 dark:border-zinc-800" : "border-amber-300 dark:border-amber-800"}`}
    >
      <h2 id={headingId} className="mb-2 flex flex-wrap items-center gap-2 text-sm font-semibold">
        Step {step.position} <KindBadge kind={step.kind} />
      </h2>
      <div className="grid grid-cols-2 gap-4">
        {(["left", "right"] as const).map((side) => {
          const own = step[side];
          const run = side === "left" ? left : right;
          return (
            <div key={side} className="min-w-0 space-y-2">
              {own ? (
                <a
                  href={`${run.pagePath}#${cardAnchor(own.eventId)}`}
                  className="inline-flex items-center gap-1 text-xs text-zinc-600 underline underline-offset-2 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"
                >
                  Step {own.step} of the {side} run <ExternalLink className="size-3" aria-hidden />
                </a>
              ) : (
                <p className="text-xs italic text-zinc-600 dark:text-zinc-400">No step here.</p>
              )}
              {own && hasText && <FieldDiff name="text" field={text} side={side} />}
            </div>
          );
        })}
      </div>
      {step.calls.length > 0 && (
        <ul className="mt-3 space-y-3">
          {step.calls.map((pair, index) => (
            <CallRow key={index} pair={pair} />
          ))}
        </ul>
      )}
    </li>
  );
}

function CallRow({ pair }: { pair: CallPair }) {
  return (
    <li
      data-testid="compare-call"
      data-kind={pair.kind}
      className="grid grid-cols-2 gap-4 border-t border-zinc-100 pt-3 dark:border-zinc-800"
    >
      {(["left", "right"] as const).map((side) => {
        const call = pair[side];
        return call ? (
          <CallColumn key={side} call={call} side={side} pair={pair} />
        ) : (
          <p key={side} className="text-xs italic text-zinc-600 dark:text-zinc-400">
            No call here.
          </p>
        );
      })}
    </li>
  );
}

function CallColumn({ call, side, pair }: { call: ToolCallView; side: Side; pair: CallPair }) {
  const other = pair[side === "left" ? "right" : "left"];
  return (
    <div className="min-w-0 space-y-1.5">
      <p className="flex flex-wrap items-center gap-1.5 text-sm">
        <span className="font-mono font-semibold">{call.name}</span>
        <span className="text-xs text-zinc-600 dark:text-zinc-400">{call.status}</span>
        {side === (pair.left ? "left" : "right") && <KindBadge kind={pair.kind} />}
      </p>
      {CALL_FIELDS.filter((field) => field !== "name").map((field) => {
        // A field neither call has (an output of two failed calls, the error of two that answered) is left out.
        if (call[field] === undefined && other?.[field] === undefined) return null;
        return (
          <FieldDiff key={field} name={field} field={pair.fields?.[field] ?? plainField(call[field])} side={side} />
        );
      })}
      {pair.fields?.name.differs && <FieldDiff name="name" field={pair.fields.name} side={side} />}
    </div>
  );
}

/** A value with nothing to hold it against (the other run has no such step or call): shown as it is. */
const plainField = (value: unknown): FieldComparison => compareField(value, value);
