import pg from "pg";

/**
 * A pool of connections to PostgreSQL (client.ts makes two: the main one and the live one) that can drop its idle
 * connections. A connection can go silent for good (a partition that ends with the router having forgotten it),
 * and a partition leaves every connection open through it so, in both pools: each would cost the next statement that
 * takes it a timeout in turn (a lease renewal, a run's outcome), which is how a healthy instance loses its runs to the
 * fence (lib/agent/claims.ts) or a run its end. So once a statement times out (`onSilence`), or a lease renewal hangs,
 * the idle connections of both pools are dropped together, and the next statements open new ones. A connection in
 * use is left to its own statement's timeout.
 */
export class DatabasePool {
  readonly pool: pg.Pool;
  private readonly idle = new Set<pg.PoolClient>();

  constructor(options: pg.PoolConfig, onSilence: () => void) {
    this.pool = new pg.Pool(options);
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
      client.emit("error", new Error("Dropped: a connection to the same database went silent, and this one may have too."));
    }
  }
}
