import type { Execution } from "@/lib/api/client";

const HEIGHT = 48;
const BAR = 6;
const GAP = 2;
/** Fewer calls are nothing to compare: one would be a lone full-height bar, its time already in the statistics. */
const FEWEST_CALLS = 2;

/** The recent calls, oldest to newest: one bar each, as tall as it took, green when it succeeded. */
export function DurationChart({ executions }: { executions: Execution[] }) {
  if (executions.length < FEWEST_CALLS) return null;
  const calls = [...executions].reverse();
  const slowest = Math.max(1, ...calls.map((call) => call.durationMs));
  const failed = calls.filter((call) => call.status !== "succeeded").length;
  const width = calls.length * (BAR + GAP);
  return (
    <div className="mt-3">
      <svg
        role="img"
        aria-label={`Last ${calls.length} calls: ${calls.length - failed} succeeded, ${failed} did not; the slowest took ${slowest} ms.`}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        width={width}
        height={HEIGHT}
        className="max-w-full"
        data-testid="duration-chart"
      >
        {calls.map((call, index) => {
          const height = Math.max(2, Math.round((call.durationMs / slowest) * HEIGHT));
          return (
            <rect
              key={call.id}
              x={index * (BAR + GAP)}
              y={HEIGHT - height}
              width={BAR}
              height={height}
              rx={1}
              className={call.status === "succeeded" ? "fill-emerald-600" : "fill-rose-600"}
            >
              <title>{`v${call.version ?? "?"} · ${call.status} · ${call.durationMs} ms`}</title>
            </rect>
          );
        })}
      </svg>
    </div>
  );
}
