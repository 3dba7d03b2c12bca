// lib/db/driver/pool.ts on a real PostgreSQL, through a relay that can silence its connections. (The `postgresql`
// project runs this file.)
import { afterEach, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/postgresql/client";
import { DatabasePool } from "@/lib/db/driver/pool";
import { ensureDatabase, freshPostgresUrl } from "../support/database";
import { TcpProxy } from "../support/tcp-proxy";

const QUERY_TIMEOUT_MS = 300;
let cleanup: () => Promise<void> = async () => {};
afterEach(() => cleanup());

/** A pool of `size` connections to a fresh database through a relay, with every connection open and idle. */
async function warmPoolThroughRelay(size = 4) {
  const databaseUrl = freshPostgresUrl();
  await ensureDatabase(databaseUrl);
  const proxy = new TcpProxy(Number(new URL(databaseUrl).port));
  await proxy.start();
  const relayed = new URL(databaseUrl);
  relayed.port = new URL(proxy.url).port;
  const live: DatabasePool = new DatabasePool(
    { connectionString: relayed.toString(), max: size, query_timeout: QUERY_TIMEOUT_MS },
    () => live.dropIdle(),
  );
  // As many statements at once open every connection, idle once they are answered.
  await Promise.all(Array.from({ length: size }, () => live.pool.query("SELECT pg_sleep(0.05)")));
  expect(live.pool.idleCount).toBe(size);
  cleanup = async () => {
    await live.pool.end();
    await proxy.stop();
  };
  return { live, proxy };
}

describe("a pool that drops silent connections", () => {
  it("drops its idle connections once a statement times out, so that the next one goes through a new connection at once", async () => {
    const { live, proxy } = await warmPoolThroughRelay();
    proxy.silenceAnswers();
    await expect(live.pool.query("SELECT 1")).rejects.toThrow("Query read timeout");
    // Without the drop, each of the three other silent connections would cost a statement a timeout in turn.
    const startedAt = performance.now();
    expect((await live.pool.query("SELECT 2 AS two")).rows).toEqual([{ two: 2 }]);
    expect(performance.now() - startedAt).toBeLessThan(QUERY_TIMEOUT_MS);
    expect(live.pool.totalCount).toBe(1);
  });

  it("drops them when told (a lease renewal hung), and leaves the connections in use to their own statements", async () => {
    const { live, proxy } = await warmPoolThroughRelay();
    proxy.silenceAnswers();
    const hung = live.pool.query("SELECT 1");
    await expect.poll(() => live.pool.idleCount).toBe(3);
    live.dropIdle();
    expect(live.pool.totalCount).toBe(1);
    expect((await live.pool.query("SELECT 3 AS three")).rows).toEqual([{ three: 3 }]);
    await expect(hung).rejects.toThrow("Query read timeout");
  });

  it("gives up on a connection that goes silent as it opens, as on a statement, so that the pool keeps its place", async () => {
    const { live, proxy } = await warmPoolThroughRelay(1);
    proxy.hold();
    await expect(live.pool.query("SELECT 1")).rejects.toThrow("Query read timeout");
    // The pool opens a new connection for the next statement, into the same partition: given up on, not waited for.
    await expect(live.pool.query("SELECT 2")).rejects.toThrow("timeout expired");
    // That connection never answers, even once the partition ends; the next statement goes through a new one.
    proxy.heal({ reset: false });
    expect((await live.pool.query("SELECT 3 AS three")).rows).toEqual([{ three: 3 }]);
  });

  it("closes a transaction's connection when its ROLLBACK gets no answer, so that the pool keeps its place", async () => {
    const { live, proxy } = await warmPoolThroughRelay(1);
    const client = new PrismaClient({ adapter: live.prismaAdapter() });
    try {
      const failed = client.$transaction(async (tx) => {
        await tx.$queryRawUnsafe("SELECT 1");
        proxy.silenceAnswers();
        await tx.$queryRawUnsafe("SELECT 2");
      });
      // The statement times out, then the ROLLBACK Prisma sends for it on the same silent connection.
      await expect(failed).rejects.toThrow();
      // Prisma never calls the adapter's rollback() after a failed ROLLBACK: left so, the connection stays taken.
      await expect.poll(() => live.pool.totalCount - live.pool.idleCount).toBe(0);
      expect(await client.$queryRawUnsafe("SELECT 3 AS three")).toEqual([{ three: 3 }]);
    } finally {
      await client.$disconnect();
    }
  });

  it("hands a transaction's connection back to the pool when the server refuses its COMMIT", async () => {
    const { live } = await warmPoolThroughRelay(1);
    const client = new PrismaClient({ adapter: live.prismaAdapter() });
    try {
      const refused = client.$transaction(async (tx) => {
        // A deferred constraint is checked at COMMIT, which the server refuses then.
        await tx.$executeRawUnsafe(
          "CREATE TEMPORARY TABLE deferred (id INT UNIQUE DEFERRABLE INITIALLY DEFERRED) ON COMMIT DROP",
        );
        await tx.$executeRawUnsafe("INSERT INTO deferred VALUES (1), (1)");
      });
      await expect(refused).rejects.toThrow("UniqueConstraintViolation");
      await expect.poll(() => live.pool.totalCount - live.pool.idleCount).toBe(0);
      // The same connection, sound: nothing of the refused transaction is left on it.
      expect(live.pool.totalCount).toBe(1);
      expect(await client.$queryRawUnsafe("SELECT to_regclass('pg_temp.deferred') IS NULL AS gone")).toEqual([
        { gone: true },
      ]);
    } finally {
      await client.$disconnect();
    }
  });
});
