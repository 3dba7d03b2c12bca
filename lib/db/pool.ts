import pg from "pg";

/**
 * A pool of connections to PostgreSQL (client.ts makes two: the main one and the live one) that can drop its idle
 * connections. A connection can go silent for good (a partition that ends with the router having forgotten it),
 * and a partition leaves every connection open through it so, in both pools: each would cost the next statement that
 * takes it a timeout in turn (a lease renewal, a run's outcome), which is how a healthy instance loses its runs to the
 * fence (lib/agent/claims.ts) or a run its end. So once a statement times out (`onSilence`: the connections idle
 * since before it went out, in every pool), or a renewal hangs (every idle one), idle connections are dropped
 * together, and the next statements open new ones. One in use is left to its own statement's timeout.
 */
export class DatabasePool {
  readonly pool: pg.Pool;
  /** The idle connections, with when each was last released (it answered then). */
  private readonly idleSince = new Map<pg.PoolClient, number>();

  constructor(options: pg.PoolConfig & { query_timeout: number }, onSilence: (idleForMs: number) => void) {
    this.pool = new pg.Pool(options);
    // An idle connection that fails is no statement's failure: the pool drops it, and the next statement opens another.
    this.pool.on("error", () => {});
    this.pool.on("acquire", (client) => this.idleSince.delete(client));
    this.pool.on("remove", (client) => this.idleSince.delete(client));
    this.pool.on("release", (error: Error | undefined, client: pg.PoolClient) => {
      if (!error) return void this.idleSince.set(client, performance.now());
      // pg's query_timeout (the pool takes that connection out itself): the statement went out that long ago.
      if (error.message === "Query read timeout") onSilence(options.query_timeout);
    });
  }

  /**
   * Drop the connections idle for `ms` or longer, as the pool drops one that fails while idle: an `error` on it,
   * which takes it out of the pool and closes it.
   */
  dropIdleFor(ms: number): void {
    const answeredBefore = performance.now() - ms;
    for (const [client, since] of this.idleSince) {
      if (since > answeredBefore) continue;
      this.idleSince.delete(client);
      client.emit("error", new Error("Dropped: a connection to the same database went silent, and this one may have too."));
    }
  }
}
