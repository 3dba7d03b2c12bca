import { config } from "@/lib/config";

/**
 * How long a run that stopped running may take to store its end. It stores its outcome in its row, then its answer
 * (a statement that succeeds or fails within the database's statement timeout), then its run_finished, a write
 * tried again for as long as a lease while the database cannot be reached (lib/events/channel.ts). Past it the end
 * is lost (a write failed, or the run's instance died), and the run is over.
 */
export const runEndGraceMs = () => config.databaseQueryTimeoutMs + config.leaseMs + 2_000;

/**
 * The run of a log whose last event is not that run's run_finished, when the run's row says it finished within the
 * grace and no newer run has ended its claim (run.ts `endOfLog`): it has not stored its end yet, and a reader that
 * finds no run running follows it for that event, as a reader that came while it ran does.
 */
export function runAwaitingItsEnd(last: { type: string; runId: string; finishedAt: Date | null; claimEnded?: boolean } | undefined): string | undefined {
  if (!last || last.type === "run_finished" || last.finishedAt === null || last.claimEnded) return undefined;
  return Date.now() - last.finishedAt.getTime() < runEndGraceMs() ? last.runId : undefined;
}
