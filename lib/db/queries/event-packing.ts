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
  /** Each delta's `at`; absent in packs stored before events had it. */
  ats?: number[];
}

// A delta that closes a signed thinking block keeps a row of its own, with its signature.
const isDelta = (event: LoggedEvent): event is Delta =>
  event.type === "text_delta" ||
  (event.type === "reasoning_delta" && event.signature === undefined && event.redacted === undefined);

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
        body.ats!.push(event.at);
        pack.row.lastSeq = seq;
        continue;
      }
      closePack();
      pack = {
        row: { seq, lastSeq: seq, runId: event.runId, type: event.type, data: "" },
        body: { type: event.type, step: event.step, runId: event.runId, deltas: [event.delta], ats: [event.at] },
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

/** `storedAt`: when the row was stored, the time of its events in logs written before events carried `at`. */
export function unpackRow(row: Pick<EventRow, "seq" | "lastSeq" | "data">, storedAt: number): SequencedEvent[] {
  const parsed = JSON.parse(row.data) as LoggedEvent | Pack;
  if (!("deltas" in parsed)) return [{ seq: row.seq, event: upgraded({ ...parsed, at: parsed.at ?? storedAt }) }];
  return parsed.deltas.map((delta, index) => ({
    seq: row.seq + index,
    event: { type: parsed.type, step: parsed.step, delta, runId: parsed.runId, at: parsed.ats?.[index] ?? storedAt },
  }));
}

/**
 * An event as the contract says it today. Logs before 2026-11-28 stored a registered tool with `id` = the version and
 * `toolId` = the tool; `id` now means the tool everywhere, as in the /api/tools routes. Logs before 2026-12-02 had no
 * top-level `tool_name` and `description`.
 */
function upgraded(event: LoggedEvent): LoggedEvent {
  if (event.type !== "tool_registered") return event;
  const { toolId, id, ...rest } = event.tool as typeof event.tool & { toolId?: string };
  const tool = toolId ? { ...rest, id: toolId, versionId: id } : event.tool;
  return { ...event, tool, tool_name: tool.name, description: tool.description };
}
