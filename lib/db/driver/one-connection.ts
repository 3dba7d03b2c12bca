import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";
import { endsTransaction, WrappedAdapterFactory } from "./sql";
import { reusingStatements } from "./statements";

/**
 * SQLite's adapter with its one connection shared safely: a statement sent while a transaction is open would run inside
 * it (and be rolled back with it: a run's events, lost with a failed registration), so statements outside it wait for
 * it to end, and a transaction for the one before. Statements of the transaction go through its own object.
 */
export const oneConnection = (factory: SqlMigrationAwareDriverAdapterFactory) =>
  new WrappedAdapterFactory(factory, (adapter) => new OneConnectionAdapter(reusingStatements(adapter)));

class OneConnectionAdapter implements SqlDriverAdapter {
  readonly provider: SqlDriverAdapter["provider"];
  readonly adapterName: string;
  /** Settles when the open (or starting) transaction has ended; unset while none is open. */
  private transactionEnded?: Promise<void>;

  constructor(private readonly connection: SqlDriverAdapter) {
    this.provider = connection.provider;
    this.adapterName = connection.adapterName;
  }

  /**
   * Wait until no transaction is open. Checked again after every wait, since a transaction queued behind the one
   * that ended may start first. A statement is sent a microtask after the last check, before anything else can
   * begin a transaction: starting one sets `transactionEnded` first, and better-sqlite3 runs a statement at once.
   */
  private async noTransaction(): Promise<void> {
    while (this.transactionEnded) await this.transactionEnded;
  }

  async queryRaw(query: SqlQuery) {
    await this.noTransaction();
    return this.connection.queryRaw(query);
  }

  async executeRaw(query: SqlQuery) {
    await this.noTransaction();
    return this.connection.executeRaw(query);
  }

  async executeScript(script: string) {
    await this.noTransaction();
    return this.connection.executeScript(script);
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    await this.noTransaction();
    let ended!: () => void;
    this.transactionEnded = new Promise((resolve) => (ended = resolve));
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      this.transactionEnded = undefined;
      ended();
    };
    let transaction: Transaction;
    try {
      transaction = await this.connection.startTransaction(isolationLevel);
    } catch (error) {
      end();
      throw error;
    }
    /**
     * A statement of this transaction. Prisma ends it with a COMMIT or ROLLBACK statement, then commit() or
     * rollback(); when that statement fails (a deferred constraint refuses the COMMIT), it calls neither, and
     * SQLite keeps the transaction open: roll it back here, so that the connection is not held for good.
     */
    const send = async <Result>(query: SqlQuery, statement: (query: SqlQuery) => Promise<Result>): Promise<Result> => {
      if (!open) throw new Error("This transaction has ended; its statement was not sent.");
      try {
        return await statement(query);
      } catch (error) {
        if (endsTransaction(query)) await giveUp();
        throw error;
      }
    };
    const giveUp = async () => {
      await transaction.executeRaw({ sql: "ROLLBACK", args: [], argTypes: [] }).catch(() => {});
      await transaction.rollback().finally(end);
    };
    return {
      provider: transaction.provider,
      adapterName: transaction.adapterName,
      options: transaction.options,
      queryRaw: (query) => send(query, (statement) => transaction.queryRaw(statement)),
      executeRaw: (query) => send(query, (statement) => transaction.executeRaw(statement)),
      commit: () => (open ? transaction.commit().finally(end) : Promise.resolve()),
      rollback: () => (open ? transaction.rollback().finally(end) : Promise.resolve()),
    };
  }

  dispose() {
    return this.connection.dispose();
  }
}
