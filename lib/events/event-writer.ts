import { BatchedWrites } from "@/lib/db/batched-writes";
import { appendLiveEvents, INSERT_ROWS, type ConversationEventRow } from "@/lib/db/events";
import type { EventRow } from "./packing";

interface ConversationRows {
  conversationId: string;
  rows: EventRow[];
}

/**
 * The process's one writer of live events. Every run's channel hands it its packed rows, and it stores what every
 * run gathered for a few milliseconds in one INSERT, which also announces them to every instance's followers; a
 * failed batch is stored again conversation by conversation.
 */
const createEventWriter = () =>
  new BatchedWrites<ConversationRows>(
    (batch) => appendLiveEvents(batch.flatMap(({ conversationId, rows }): ConversationEventRow[] => rows.map((row) => ({ ...row, conversationId })))),
    {
      // A short wait that buys one statement for every streaming run's rows.
      gatherMs: 8,
      rowsOf: ({ rows }) => rows.length,
      maxRows: INSERT_ROWS,
    },
  );

const globalWriter = globalThis as unknown as { toolsmithEventWriter?: ReturnType<typeof createEventWriter> };
export const eventWriter = (globalWriter.toolsmithEventWriter ??= createEventWriter());
