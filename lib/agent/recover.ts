import { appendEvents, lastEventSeq } from "@/lib/db/events";
import { finishRun, listUnfinishedRuns } from "@/lib/db/runs";
import { packEvents } from "@/lib/events/packing";
import type { AgentEvent } from "@/lib/events/types";

/**
 * Close the runs a stopped server left open: nothing will finish them, so their traces end with an error and a
 * run_finished, as a failed run's would, and readers stop waiting for them. Call at start-up, before any run.
 */
export async function closeAbandonedRuns(): Promise<number> {
  const runs = await listUnfinishedRuns();
  for (const run of runs) {
    const seq = (await lastEventSeq(run.conversationId)) + 1;
    const closing: AgentEvent[] = [
      { type: "error", code: "server_restarted", message: "The server stopped during this run; it did not finish." },
      { type: "run_finished", status: "error", steps: run.steps },
    ];
    await appendEvents(run.conversationId, packEvents(closing.map((event, index) => ({ seq: seq + index, event: { ...event, runId: run.id } }))));
    await finishRun(run.id, "error", run.steps);
  }
  return runs.length;
}
