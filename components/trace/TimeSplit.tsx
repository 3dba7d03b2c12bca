import { formatMs, type TimeSplit as Split } from "@/lib/trace/timing";

const parts = [
  { key: "model", label: "Model", swatch: "bg-violet-500 dark:bg-violet-400" },
  { key: "tools", label: "Tools", swatch: "bg-emerald-500 dark:bg-emerald-400" },
  { key: "other", label: "Other", swatch: "bg-zinc-400 dark:bg-zinc-500" },
] as const;

const share = (ms: number, total: number) => (total > 0 ? (100 * ms) / total : 0);

/** One bar splitting the run's time into model, tools and the rest, with a legend that says each in ms and %. */
export function TimeSplit({ split }: { split: Split }) {
  const ms = { model: split.modelMs, tools: split.toolsMs, other: split.otherMs };
  return (
    <div>
      {/* The legend below says all of it; the bar is its picture. */}
      <div aria-hidden className="flex h-3 overflow-hidden rounded bg-zinc-100 dark:bg-zinc-800">
        {parts.map(({ key, swatch }) => (
          <div key={key} className={swatch} style={{ width: `${share(ms[key], split.totalMs)}%` }} />
        ))}
      </div>
      <ul
        aria-label="Where the run's time went"
        data-testid="time-split"
        data-total-ms={split.totalMs}
        className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1 text-[11px] text-zinc-700 dark:text-zinc-300"
      >
        {parts.map(({ key, label, swatch }) => (
          <li key={key} data-part={key} data-ms={ms[key]} className="inline-flex items-center gap-1.5">
            <span aria-hidden className={`size-2.5 rounded-sm ${swatch}`} />
            {label} <span className="tabular-nums">{formatMs(ms[key])}</span>
            <span className="tabular-nums text-zinc-600 dark:text-zinc-400">
              {Math.round(share(ms[key], split.totalMs))}%
            </span>
          </li>
        ))}
        <li className="ml-auto tabular-nums">of {formatMs(split.totalMs)}</li>
      </ul>
    </div>
  );
}
