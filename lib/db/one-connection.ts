import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * SQLite's adapter with its one connection shared safely. The adapter queues transactions behind each other, but
 * sends every other statement at once, and on one connection a statement sent while a transaction is open runs
 * inside it: it reads what the transaction has not committed, and what it writes is rolled back with it although
 * its caller was told it was stored (a run's events, lost when a tool's registration failed). Here a statement
 * outside the transaction waits until the transaction has ended, and a transaction waits for the one before.
 * Statements of the transaction go through its own object and never wait.
 */
export class OneConnectionAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlMigrationAwareDriverAdapterFactory["provider"];
  readonly adapterName: string;

  constructor(private readonly factory: SqlMigrationAwareDriverAdapterFactory) {
    this.provider = factory.provider;
    this.adapterName = factory.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return new OneConnectionAdapter(await this.factory.connect());
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.factory.connectToShadowDb();
  }
}

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
   * that ended may start first. The statement is sent in the same turn as the last check: better-sqlite3 runs it
   * before anything else can begin a transaction.
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
    const end = () => {
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
    // Prisma sends COMMIT or ROLLBACK through the transaction, then calls commit() or rollback(): the end.
    return {
      provider: transaction.provider,
      adapterName: transaction.adapterName,
      options: transaction.options,
      queryRaw: (query) => transaction.queryRaw(query),
      executeRaw: (query) => transaction.executeRaw(query),
      commit: () => transaction.commit().finally(end),
      rollback: () => transaction.rollback().finally(end),
    };
  }

  dispose() {
    return this.connection.dispose();
  }
}
