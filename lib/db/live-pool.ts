import pg from "pg";

/**
 * The pool of the live statements (client.ts), which can drop its idle connections. A connection can go silent
 * for good (a partition that ends with the router having forgotten it), and a partition leaves every connection
 * open through it so: each would cost the next statement that takes it a timeout in turn, a lease renewal among
 * them, which is how a healthy instance loses its runs to the fence (lib/agent/claims.ts). So once a statement
 * times out, or a renewal hangs, the connections idle at that moment are dropped together, and the next statements
 * open new ones. A connection in use is left to its own statement's timeout.
 */
export class LivePool {
  readonly pool: pg.Pool;
  private readonly idle = new Set<pg.PoolClient>();

  constructor(options: pg.PoolConfig) {
    this.pool = new pg.Pool(options);
    // An idle connection that fails is no statement's failure: the pool drops it, and the next statement opens another.
    this.pool.on("error", () => {});
    this.pool.on("acquire", (client) => this.idle.delete(client));
    this.pool.on("remove", (client) => this.idle.delete(client));
    this.pool.on("release", (error: Error | undefined, client: pg.PoolClient) => {
      if (!error) return void this.idle.add(client);
      // pg's query_timeout, which also takes the connection out of the pool.
      if (error.message === "Query read timeout") this.dropIdle();
    });
  }

  /**
   * Drop every idle connection, as the pool drops one that fails while idle: an `error` on it, which takes it out
   * of the pool and closes it (the adapter listens for the pool's report of it).
   */
  dropIdle(): void {
    for (const client of this.idle) {
      this.idle.delete(client);
      client.emit("error", new Error("Dropped: a connection of the same pool went silent, and this one may have too."));
    }
  }
}
