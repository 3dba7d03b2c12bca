import { config } from "@/lib/settings/config";

/**
 * How long after a run's row says it finished a reader that comes takes it for still finishing, and follows it for
 * its end: a run stores its run_finished right after its outcome (lib/runs/run.ts storeOutcome) unless its
 * database is in trouble. Past it the run is over for a new reader (the page, a script polling for it), and a new
 * run may begin (run.ts `endOfLog`).
 */
export const RUN_FINISHING_MS = 2_000;

/**
 * How long a follower that was following a run when it stopped running waits for its end: as long as storing it
 * takes but for an outage of the database. It stores its outcome in its row and its answer, then its run_finished:
 * statements that succeed or fail within the statement timeout, the last one tried again for as long as a lease
 * while the database cannot be reached (lib/events/channel.ts). Past it the end is taken for lost (a write failed,
 * or the run's instance died); one that a longer outage held up (the outcome and answer are tried again for a lease
 * too) is in the log for a reader that comes later. Not longer: a follower of a run whose instance died as it
 * finished waits all of it.
 */
export const runEndGraceMs = () => config.databaseQueryTimeoutMs + config.leaseMs + 2_000;

/**
 * The run of a log whose last event is not that run's run_finished, when the run's row says it finished less than
 * RUN_FINISHING_MS before `now` (the database's time: another instance wrote finishedAt) and no newer run has
 * ended its claim: it has not stored its end yet, and a reader that finds no run running follows it for that
 * event, as a reader that came while it ran does.
 */
export function runAwaitingItsEnd(
  last: { type: string; runId: string; finishedAt: Date | null; claimEnded?: boolean } | undefined,
  now: Date,
): string | undefined {
  if (!last || last.type === "run_finished" || last.finishedAt === null || last.claimEnded) return undefined;
  return now.getTime() - last.finishedAt.getTime() < RUN_FINISHING_MS ? last.runId : undefined;
}
