import { appendEvents, type ConversationEventRow } from "@/lib/db/events";
import { notifications } from "@/lib/db/notifications";
import type { EventRow } from "./packing";

/** How long the writer gathers rows before it stores them: the price of one statement for every live run. */
const GATHER_MS = 8;
/** Rows that are stored at once without waiting. */
const GATHER_ROWS = 2_000;

interface Pending {
  conversationId: string;
  rows: EventRow[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The process's one writer of live events. Every run's channel hands it its packed rows, and it stores everything
 * gathered for a few milliseconds in one INSERT, so that a hundred live runs cost a statement every few
 * milliseconds instead of a hundred. A batch that fails is split by conversation and tried again, so one
 * conversation's failure (a constraint, a trigger) is never another's. Once stored, the rows are announced to
 * the other instances' followers.
 */
class EventWriter {
  private pending: Pending[] = [];
  private rows = 0;
  private timer?: NodeJS.Timeout;

  /** Store a conversation's rows; resolves once they are stored, rejects when they cannot be. */
  write(conversationId: string, rows: EventRow[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ conversationId, rows, resolve, reject });
      this.rows += rows.length;
      if (this.rows >= GATHER_ROWS) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), GATHER_MS);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.rows = 0;
    if (batch.length === 0) return;
    store(batch).then(
      () => settle(batch),
      // Alone, each conversation stands or falls by its own rows.
      () => batch.forEach((one) => store([one]).then(() => settle([one]), one.reject)),
    );
  }
}

const store = (batch: Pending[]) => appendEvents(batch.flatMap(({ conversationId, rows }): ConversationEventRow[] => rows.map((row) => ({ ...row, conversationId }))));

function settle(batch: Pending[]): void {
  for (const { conversationId, rows, resolve } of batch) {
    notifications.announceStored(conversationId, rows.at(-1)!.lastSeq);
    resolve();
  }
}

const globalWriter = globalThis as unknown as { toolsmithEventWriter?: EventWriter };
export const eventWriter: EventWriter = (globalWriter.toolsmithEventWriter ??= new EventWriter());
