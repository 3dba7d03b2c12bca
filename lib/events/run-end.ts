import { config } from "@/lib/settings/config";

/**
 * How long after a run's row says it finished a new reader still follows it for its run_finished (stored right after
 * the outcome); past it the run is over for readers, and a new run may end its claim (run.ts `awaitLogEnd`).
 */
export const RUN_FINISHING_MS = 2_000;

/**
 * How long a follower of a run that stopped running waits for its run_finished: a statement's timeout, a lease of
 * retries while the database is unreachable, and 2 s (docs/architecture.md, "Finish"); past it the end is lost.
 */
export const runEndGraceMs = () => config.databaseQueryTimeoutMs + config.leaseMs + 2_000;

/**
 * The run of a log that lacks its run_finished, when its row finished less than RUN_FINISHING_MS before `now` (the
 * database's time) and no newer run ended its claim: a reader that finds no run running follows it for that event.
 */
export function runAwaitingItsEnd(
  last: { type: string; runId: string; finishedAt: Date | null; claimEnded?: boolean } | undefined,
  now: Date,
): string | undefined {
  if (!last || last.type === "run_finished" || last.finishedAt === null || last.claimEnded) return undefined;
  return now.getTime() - last.finishedAt.getTime() < RUN_FINISHING_MS ? last.runId : undefined;
}
