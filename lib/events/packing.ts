import type { LoggedEvent, SequencedEvent } from "@/lib/contract/events";

/**
 * How events are stored: one row per event, except that consecutive deltas of one kind and step share one row (a
 * "pack"), since a run streams a delta per token; unpacking gives each delta its own seq back, as it streamed.
 */
export interface EventRow {
  seq: number;
  /** The seq of the last event in the row: equal to `seq` but for packs. */
  lastSeq: number;
  runId: string;
  type: string;
  data: string;
}

type Delta = Extract<LoggedEvent, { type: "text_delta" | "reasoning_delta" }>;
interface Pack {
  type: Delta["type"];
  step: number;
  runId: string;
  deltas: string[];
}

const isDelta = (event: LoggedEvent): event is Delta => event.type === "text_delta" || event.type === "reasoning_delta";

export function packEvents(events: SequencedEvent[]): EventRow[] {
  const rows: EventRow[] = [];
  let pack: { row: EventRow; body: Pack } | undefined;
  const closePack = () => {
    if (pack) pack.row.data = JSON.stringify(pack.body);
    pack = undefined;
  };
  for (const { seq, event } of events) {
    if (isDelta(event)) {
      const body = pack?.body;
      if (
        pack &&
        body &&
        body.type === event.type &&
        body.step === event.step &&
        body.runId === event.runId &&
        pack.row.lastSeq === seq - 1
      ) {
        body.deltas.push(event.delta);
        pack.row.lastSeq = seq;
        continue;
      }
      closePack();
      pack = {
        row: { seq, lastSeq: seq, runId: event.runId, type: event.type, data: "" },
        body: { type: event.type, step: event.step, runId: event.runId, deltas: [event.delta] },
      };
      rows.push(pack.row);
      continue;
    }
    closePack();
    rows.push({ seq, lastSeq: seq, runId: event.runId, type: event.type, data: JSON.stringify(event) });
  }
  closePack();
  return rows;
}

export function unpackRow(row: Pick<EventRow, "seq" | "lastSeq" | "data">): SequencedEvent[] {
  const parsed = JSON.parse(row.data) as LoggedEvent | Pack;
  if (!("deltas" in parsed)) return [{ seq: row.seq, event: parsed }];
  return parsed.deltas.map((delta, index) => ({
    seq: row.seq + index,
    event: { type: parsed.type, step: parsed.step, delta, runId: parsed.runId },
  }));
}
