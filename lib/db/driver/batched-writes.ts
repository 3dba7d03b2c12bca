import { processWide } from "@/lib/platform/process-wide";
import { sql } from "./client";
import { insertSql, type SqlValue } from "./sql";

/** A batch's rows, unless told otherwise: it is stored at once when it has this many, and never holds more. */
const MAX_ROWS = 1_000;

interface Pending<Item> {
  item: Item;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes of one kind from every live run, gathered for a few milliseconds into one statement, stored or refused whole;
 * a batch that fails is stored again item by item, so that one item's failure (a constraint) is never another's.
 */
export class BatchedWrites<Item> {
  private pending: Pending<Item>[] = [];
  /** The batches being stored: `settled` waits for them. */
  private readonly storing = new Set<Promise<void>>();
  private rows = 0;
  private cancelGathering?: () => void;

  constructor(
    /**
     * Store these items, in one statement where it can. It may refuse some while it stores the others: it returns
     * them, each with the error its writer gets (not retried: the statement worked).
     */
    private readonly store: (items: Item[]) => Promise<Map<Item, Error> | void>,
    options: {
      /**
       * How long to gather: some milliseconds, or 0 for the rest of the event loop's turn (no added wait when the
       * process is idle; under load a turn holds many runs' writes).
       */
      gatherMs: number;
      /** How many rows an item writes. */
      rowsOf?: (item: Item) => number;
      /** The most rows `store` writes in one statement: a batch never holds more (but for an item that has more). */
      maxRows?: number;
    },
  ) {
    this.gatherMs = options.gatherMs;
    this.rowsOf = options.rowsOf ?? (() => 1);
    this.maxRows = options.maxRows ?? MAX_ROWS;
  }

  private readonly gatherMs: number;
  private readonly rowsOf: (item: Item) => number;
  private readonly maxRows: number;

  /**
   * Store what is gathered now, and resolve once every item written before the call is stored or refused: a reader
   * of this process then sees its own writes. Writes made meanwhile are not waited for.
   */
  async settled(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.storing]);
  }

  /** Store an item; resolves once it is stored, rejects when it cannot be. */
  write(item: Item): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const rows = this.rowsOf(item);
      if (this.rows > 0 && this.rows + rows > this.maxRows) this.flush();
      this.pending.push({ item, resolve, reject });
      this.rows += rows;
      if (this.rows >= this.maxRows) this.flush();
      else this.cancelGathering ??= this.gather();
    });
  }

  private gather(): () => void {
    if (this.gatherMs === 0) {
      const immediate = setImmediate(() => this.flush());
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(() => this.flush(), this.gatherMs);
    return () => clearTimeout(timer);
  }

  private flush(): void {
    this.cancelGathering?.();
    this.cancelGathering = undefined;
    const batch = this.pending;
    this.pending = [];
    this.rows = 0;
    if (batch.length === 0) return;
    const stored = this.storeAll(batch).catch(() =>
      Promise.all(batch.map((one) => this.storeAll([one]).catch(one.reject))).then(() => {}),
    );
    this.storing.add(stored);
    void stored.finally(() => this.storing.delete(stored));
  }

  /** Store the batch and settle its writers; rejects (settling none) when the statement failed. */
  private async storeAll(batch: Pending<Item>[]): Promise<void> {
    const refused = await this.store(batch.map(({ item }) => item));
    for (const { item, resolve, reject } of batch) {
      const error = refused?.get(item);
      if (error) reject(error);
      else resolve();
    }
  }
}

/**
 * For the records of a call (its execution, its audit entry): gathered a little longer, so that storing them comes
 * after the call's answer is sent rather than before it (SQLite's statements run on the main thread). A reader
 * stores them first (`settled`), and so does a stopping server (`settleRecordWrites`).
 */
export const RECORD_GATHERING = { gatherMs: 10 };

/** Every table's batched inserts, for a server that stops: what they gathered is stored before it exits. */
const tables = processWide("batchedInsertTables", () => new Set<BatchedWrites<SqlValue[]>>());

export async function settleRecordWrites(): Promise<void> {
  await Promise.all([...tables].map((writes) => writes.settled()));
}

/**
 * Rows of one table from every live run, inserted together: by default one statement per turn of the event loop,
 * which under load holds many runs' rows, and no wait when the process is idle.
 */
export function batchedInserts(
  table: string,
  columns: readonly string[],
  { gatherMs = 0 }: { gatherMs?: number } = {},
): BatchedWrites<SqlValue[]> {
  // One per table in the process, whichever copy of a module asks (a route's, a direct route's): a reader in one
  // stores what a call in another gathered before it reads.
  return processWide(`batchedInserts.${table}`, () => {
    const writes = new BatchedWrites<SqlValue[]>(
      async (rows) => {
        await sql.execute(insertSql(table, columns, rows.length), rows.flat());
      },
      { gatherMs },
    );
    tables.add(writes);
    return writes;
  });
}
