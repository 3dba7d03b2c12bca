import { BatchedWrites } from "@/lib/db/driver/batched-writes";
import { appendLiveEvents, INSERT_ROWS, type ClaimedEventRow } from "@/lib/db/queries/events";
import { processWide } from "@/lib/platform/process-wide";
import type { EventRow } from "@/lib/db/queries/event-packing";

/** One run's rows, and the claim the run writes them under. */
interface RunRows {
  conversationId: string;
  runId: string;
  claim: string;
  rows: EventRow[];
}

/**
 * The run's row has another claim now: the run was taken over, and its events are the new claim's to write. One
 * class per process: the process's one writer throws it to every copy of the channel module.
 */
export const RunTakenOverError = processWide(
  "RunTakenOverError",
  () =>
    class RunTakenOverError extends Error {
      constructor(runId: string) {
        super(`Run ${runId} was taken over; its events from here were not stored.`);
      }
    },
);

/**
 * The process's one writer of live events. Every run's channel hands it its packed rows, and it stores what every
 * run gathered for a few milliseconds in one INSERT, which also announces them to every instance's followers; a
 * failed batch is stored again run by run. The rows of a run that was taken over since are refused.
 */
const createEventWriter = () =>
  new BatchedWrites<RunRows>(
    async (batch) => {
      const refused = await appendLiveEvents(
        batch.flatMap(({ conversationId, claim, rows }): ClaimedEventRow[] =>
          rows.map((row) => ({ ...row, conversationId, claim })),
        ),
      );
      return new Map(
        batch.filter(({ claim }) => refused.has(claim)).map((item) => [item, new RunTakenOverError(item.runId)]),
      );
    },
    {
      // A short wait that buys one statement for every streaming run's rows.
      gatherMs: 8,
      rowsOf: ({ rows }) => rows.length,
      maxRows: INSERT_ROWS,
    },
  );

export const eventWriter = processWide("eventWriter", createEventWriter);
