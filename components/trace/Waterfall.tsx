"use client";

import { ChartGantt, ChevronRight, XCircle } from "lucide-react";
import { memo, startTransition, useDeferredValue, useEffect, useId, useMemo, useState, type MouseEvent } from "react";
import type { RunView } from "@/lib/trace/state";
import {
  costOf,
  formatMs,
  formatTokens,
  formatUsd,
  latestTime,
  runTiming,
  runTokens,
  type ModelPrice,
  type RunTokens,
  type WaterfallRow,
} from "@/lib/trace/timing";
import { cardAnchor } from "./CardActions";
import { useModelPrice } from "./ModelPrices";
import { TimeSplit } from "./TimeSplit";

/** Rows built when the timeline opens; a long run's others wait for "Show all", so opening stays one short task. */
const FIRST_ROWS = 60;

/**
 * A run's timeline, collapsed under its header: its time split into model, tools and the rest, its tokens and cost,
 * then the waterfall, a row per model call and per tool call on one time axis. Built only when opened.
 */
export const Waterfall = memo(function Waterfall({ run, index }: { run: RunView; index: number }) {
  const [open, setOpen] = useState(false);
  // The button answers at once; a long run's rows are then built in slices, between which the page stays responsive.
  const built = useDeferredValue(open);
  const price = useModelPrice(run.model);
  const tokens = useMemo(() => runTokens(run), [run]);
  const cost = costOf(tokens, price);
  const regionId = useId();
  const summary = [
    run.endedAt !== undefined && formatMs(run.endedAt - run.startedAt),
    `${formatTokens(tokens.input)} → ${formatTokens(tokens.output)} tokens`,
    cost !== undefined && formatUsd(cost),
  ].filter(Boolean);
  return (
    <div className="mb-3" data-testid="run-timeline">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={regionId}
        onClick={() => setOpen((shown) => !shown)}
        className="inline-flex items-center gap-1.5 rounded-md px-1.5 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-200/70 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        <ChevronRight className={`size-3.5 transition-transform ${open ? "rotate-90" : ""}`} aria-hidden />
        <ChartGantt className="size-3.5" aria-hidden />
        Timeline
        <span className="font-normal text-zinc-600 dark:text-zinc-400">{summary.join(" · ")}</span>
      </button>
      {built && <TimelineBody id={regionId} run={run} label={`Run ${index + 1} timeline`} price={price} />}
    </div>
  );
});

function TimelineBody({
  id,
  run,
  label,
  price,
}: {
  id: string;
  run: RunView;
  label: string;
  price: ModelPrice | undefined;
}) {
  const running = run.status === "running";
  const now = useNow(running);
  // A running run's open bars reach now; the browser's clock is held back to the latest time its events say.
  const timing = useMemo(
    () => runTiming(run, running ? Math.max(now, latestTime(run)) : undefined),
    [run, running, now],
  );
  const [showAll, setShowAll] = useState(false);
  const rows = showAll ? timing.rows : timing.rows.slice(0, FIRST_ROWS);
  const total = timing.split.totalMs;
  return (
    <div
      id={id}
      role="region"
      aria-label={label}
      className="mt-2 space-y-3 rounded-xl border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900/60"
    >
      <TimeSplit split={timing.split} />
      <TokensAndCost tokens={timing.tokens} price={price} model={run.model} />
      <div>
        <div
          aria-hidden
          className="ml-34 mr-18 flex justify-between text-[10px] tabular-nums text-zinc-600 dark:text-zinc-400"
        >
          <span>0</span>
          <span>{formatMs(total / 2)}</span>
          <span>{formatMs(total)}</span>
        </div>
        <ol aria-label="Model and tool calls on the run's time axis" className="mt-1">
          {rows.map((row) => (
            <Row key={`${row.kind}-${row.eventId}`} row={row} total={total} />
          ))}
        </ol>
        {rows.length < timing.rows.length && (
          <button
            type="button"
            // A transition: React builds the rows in slices, between which the page stays responsive.
            onClick={() => startTransition(() => setShowAll(true))}
            className="mt-2 rounded-md px-2 py-1 text-xs font-medium text-sky-800 hover:bg-sky-50 dark:text-sky-300 dark:hover:bg-sky-950/40"
          >
            Show all {timing.rows.length} rows
          </button>
        )}
      </div>
    </div>
  );
}

function TokensAndCost({ tokens, price, model }: { tokens: RunTokens; price?: ModelPrice; model?: string }) {
  const cost = costOf(tokens, price);
  return (
    <p className="text-[11px] text-zinc-700 dark:text-zinc-300" data-testid="run-cost">
      Tokens: <span className="tabular-nums">{formatTokens(tokens.input)}</span> in,{" "}
      <span className="tabular-nums">{formatTokens(tokens.output)}</span> out
      {tokens.uncounted > 0 && ` (${tokens.uncounted} steps without a count)`}
      {" · "}
      {cost === undefined ? (
        <span className="text-zinc-600 dark:text-zinc-400">no price set for {model ?? "this model"}</span>
      ) : (
        <>
          cost <span className="tabular-nums">{formatUsd(cost)}</span>
        </>
      )}
    </p>
  );
}

const pct = (ms: number, total: number) => (total > 0 ? (100 * ms) / total : 0);

const barColour = (row: WaterfallRow) =>
  row.failed
    ? "bg-rose-500 dark:bg-rose-400"
    : row.kind === "model"
      ? "bg-violet-500 dark:bg-violet-400"
      : "bg-emerald-500 dark:bg-emerald-400";

/**
 * One call: its name (a link to its card), its bar on the run's time axis, its duration. Compared by value: a live
 * run's text deltas make new rows with the same times, which need not render again.
 */
const Row = memo(function Row({ row, total }: { row: WaterfallRow; total: number }) {
  const duration = row.end - row.start;
  const what = row.kind === "model" ? "model call" : "tool call";
  const label = row.kind === "model" ? `${row.label} · model` : row.label;
  return (
    <li
      data-testid="waterfall-row"
      data-kind={row.kind}
      data-start={row.start}
      data-end={row.end}
      data-failed={row.failed || undefined}
      // Rows out of view are neither styled nor laid out: a thousand of them cost what the visible ones do.
      className="flex h-4 items-center gap-2 text-[11px] [contain-intrinsic-size:auto_1rem] [content-visibility:auto]"
    >
      <a
        href={`#${cardAnchor(row.eventId)}`}
        onClick={(event) => revealCard(event, row)}
        aria-label={`${label}, ${what}${row.failed ? ", failed" : ""}, from ${formatMs(row.start)} to ${formatMs(row.end)}${row.open ? ", not ended" : ""}`}
        className={`w-32 shrink-0 truncate rounded-sm hover:underline ${row.kind === "tool" ? "pl-3 font-mono" : "font-medium"} ${row.failed ? "text-rose-800 dark:text-rose-300" : "text-zinc-800 dark:text-zinc-200"}`}
      >
        {row.failed && <XCircle className="mr-1 inline size-3 align-[-2px]" aria-hidden />}
        {label}
      </a>
      <div aria-hidden className="relative h-3 flex-1 rounded-sm bg-zinc-100 dark:bg-zinc-800">
        <div
          className={`absolute inset-y-0 min-w-px rounded-sm ${barColour(row)} ${row.open ? "opacity-60" : ""}`}
          style={{ left: `${pct(row.start, total)}%`, width: `${pct(duration, total)}%` }}
        >
          {row.firstByte !== undefined && duration > 0 && (
            // Waiting for the model's first byte: the lighter part of its bar.
            <div
              className="absolute inset-y-0 left-0 rounded-l-sm bg-white/55 dark:bg-zinc-950/45"
              style={{ width: `${pct(row.firstByte - row.start, duration)}%` }}
            />
          )}
        </div>
      </div>
      <span className="w-16 shrink-0 text-right tabular-nums text-zinc-600 dark:text-zinc-400">
        {formatMs(duration)}
        {row.open && "…"}
      </span>
    </li>
  );
}, sameRow);

function sameRow(before: { row: WaterfallRow; total: number }, after: { row: WaterfallRow; total: number }) {
  const [a, b] = [before.row, after.row];
  return (
    before.total === after.total &&
    a.eventId === b.eventId &&
    a.label === b.label &&
    a.start === b.start &&
    a.end === b.end &&
    a.firstByte === b.firstByte &&
    a.failed === b.failed &&
    a.open === b.open
  );
}

/**
 * Follow a row's link to its card. A tool call's card far from view is not built yet (LazyMount): bring its place in
 * its step (always built) into view, which builds it, then go to the card; a plan (think) is found by that place.
 */
function revealCard(event: MouseEvent<HTMLAnchorElement>, row: WaterfallRow) {
  const anchor = cardAnchor(row.eventId);
  if (document.getElementById(anchor)) return;
  const step = document.getElementById(cardAnchor(row.stepEventId));
  if (!step) return;
  event.preventDefault();
  history.pushState(null, "", `#${anchor}`);
  const place = row.callIndex === undefined ? undefined : step.querySelectorAll(":scope > ul > li")[row.callIndex];
  (place ?? step).scrollIntoView({ block: "center" });
  let frames = 30;
  const settle = () => {
    const card = document.getElementById(anchor);
    if (card) card.scrollIntoView();
    else if (--frames > 0) requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
}

/** Date.now(), again every second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
