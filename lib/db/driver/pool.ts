import { PrismaPg } from "@prisma/adapter-pg";
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";
import pg from "pg";
import { answerCode, endsTransaction, WrappedAdapterFactory } from "./sql";

/**
 * A pool of connections to PostgreSQL that can drop its idle ones: after a partition each silent connection would cost
 * the next statement a timeout in turn, enough to lose a run to the fence (docs/architecture.md, "An instance cut off
 * from the database"). `onSilence`: a statement timed out; a connection in use is left to its own timeout. A
 * connection that does not open within a statement's timeout (`query_timeout`) is given up on too.
 */
export class DatabasePool {
  readonly pool: pg.Pool;
  private readonly idle = new Set<pg.PoolClient>();

  constructor(options: pg.PoolConfig, onSilence: () => void) {
    this.pool = new pg.Pool({ ...options, Client: openingWithin(options.query_timeout) });
    // An idle connection that fails is no statement's failure: the pool drops it, and the next statement opens another.
    this.pool.on("error", () => {});
    this.pool.on("acquire", (client) => this.idle.delete(client));
    this.pool.on("remove", (client) => this.idle.delete(client));
    this.pool.on("release", (error: Error | undefined, client: pg.PoolClient) => {
      if (!error) return void this.idle.add(client);
      // pg's query_timeout; the pool takes that connection out itself.
      if (error.message === "Query read timeout") onSilence();
    });
  }

  /** Prisma's adapter over this pool, whose transactions give their connection up when they cannot end. */
  prismaAdapter(): SqlMigrationAwareDriverAdapterFactory {
    return new WrappedAdapterFactory(new PrismaPg(this.pool), closingStuckTransactions);
  }

  /** Statements waiting for one of the pool's connections, all of them in use. */
  get waiting(): number {
    return this.pool.waitingCount;
  }

  /**
   * Drop the idle connections, as the pool drops one that fails while idle: an `error` on it, which takes it out of
   * the pool and closes it.
   */
  dropIdle(): void {
    for (const client of this.idle) {
      this.idle.delete(client);
      client.emit(
        "error",
        new Error("Dropped: a connection to the same database went silent, and this one may have too."),
      );
    }
  }
}

/**
 * pg's client, giving up on opening its connection after `ms`: one opened into a partition may never answer, and pg
 * would keep the statement that opened it waiting, and its place in the pool taken, for good. Not pg-pool's own
 * connectionTimeoutMillis, which also fails statements that wait for a free connection, a sign of load, not silence.
 */
function openingWithin(ms: number | undefined): new () => pg.Client {
  return class extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: ms });
    }
  };
}

/**
 * An adapter whose transactions give their connection up when they cannot end: when Prisma's COMMIT or ROLLBACK fails
 * it calls neither commit() nor rollback(), and the connection would stay taken for good. Refused by the server: back
 * to the pool; no answer: released with the error, which pg-pool closes it for (the server rolls back what it held).
 */
function closingStuckTransactions(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (query) => adapter.queryRaw(query),
    executeRaw: (query) => adapter.executeRaw(query),
    executeScript: (script) => adapter.executeScript(script),
    getConnectionInfo: adapter.getConnectionInfo && (() => adapter.getConnectionInfo!()),
    dispose: () => adapter.dispose(),
    startTransaction: async (isolationLevel?: IsolationLevel) =>
      closingWhenStuck(await adapter.startTransaction(isolationLevel)),
  };
}

function closingWhenStuck(transaction: Transaction): Transaction {
  // PrismaPg's transaction keeps its pool connection here (@prisma/adapter-pg 6.19: PgQueryable's `client`).
  const connection = (transaction as unknown as { client: pg.PoolClient }).client;
  let closed = false;
  const executeRaw = async (query: SqlQuery) => {
    try {
      return await transaction.executeRaw(query);
    } catch (error) {
      if (endsTransaction(query) && !closed) {
        closed = true;
        // Refused by the server (a deferred constraint at COMMIT): the transaction is over and the connection sound,
        // back to the pool. No answer: closed.
        if (answerCode(error) !== undefined) await transaction.rollback();
        else connection.release(error as Error);
      }
      throw error;
    }
  };
  return {
    provider: transaction.provider,
    adapterName: transaction.adapterName,
    options: transaction.options,
    queryRaw: (query) => transaction.queryRaw(query),
    executeRaw,
    commit: () => (closed ? Promise.resolve() : transaction.commit()),
    rollback: () => (closed ? Promise.resolve() : transaction.rollback()),
  };
}
