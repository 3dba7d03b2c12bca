import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { config, databaseConfig } from "@/lib/settings/config";
import { PrismaClient as PostgresqlClient } from "@/lib/generated/postgresql/client";
import { PrismaClient } from "@/lib/generated/sqlite/client";
import { processWide } from "@/lib/platform/process-wide";
import { oneConnection } from "./one-connection";
import { DatabasePool } from "./pool";
import { SharedAdapterFactory, Sql } from "./sql";

/** Which database this process uses (DATABASE_URL): SQLite, embedded, or PostgreSQL, shared by many instances. */
export const provider = databaseConfig().provider;

/**
 * The client of the configured provider. Both are generated from the same models (scripts/generate-clients.mjs),
 * so they answer the same calls; the code is typed against the SQLite one.
 */
function connect(): { db: PrismaClient; sql: Sql; liveSql: Sql; pools?: { live: DatabasePool; dropIdle: () => void } } {
  const database = databaseConfig();
  if (database.provider === "postgresql") {
    // A statement whose connection says nothing for `query_timeout` fails, and the connection leaves the pool (pg-pool
    // drops a client released with an error): a connection gone silent costs a statement, not its place for good.
    const timeoutMs = config.databaseQueryTimeoutMs;
    // A statement that times out in either pool drops the idle connections of both (pool.ts).
    const dropIdle = () => {
      mainPool.dropIdle();
      livePool.dropIdle();
    };
    const mainPool = new DatabasePool(
      {
        connectionString: database.url,
        max: config.databasePool,
        // A slow statement is cancelled by the server first, a second before the client would give up on the
        // connection: it fails cleanly, nothing of it commits later, and its transaction can be rolled back.
        statement_timeout: timeoutMs,
        query_timeout: timeoutMs + 1_000,
        // A transaction its client gave up on (its connection silent) does not keep its locks.
        idle_in_transaction_session_timeout: timeoutMs,
      },
      dropIdle,
    );
    const adapter = new SharedAdapterFactory(mainPool.prismaAdapter());
    const client = new PostgresqlClient({ adapter }) as unknown as PrismaClient;
    // Short statements, none in a transaction; a lease renewal answered later than a quarter of the lease is of
    // little use, and the connection is taken for silent sooner than the lease is lost (the fence: claims.ts).
    const livePool = new DatabasePool(
      {
        connectionString: database.url,
        max: config.liveDatabasePool,
        query_timeout: Math.min(timeoutMs, config.leaseMs / 4),
      },
      dropIdle,
    );
    const liveAdapter = new SharedAdapterFactory(livePool.prismaAdapter());
    // The adapter is made on first use (a pool opens no connection until a statement needs one).
    let liveAdapterConnected: Promise<unknown> | undefined;
    const liveSql = new Sql(liveAdapter, async () => {
      await (liveAdapterConnected ??= liveAdapter.connect());
    });
    return { db: client, sql: new Sql(adapter, () => client.$connect()), liveSql, pools: { live: livePool, dropIdle } };
  }
  fs.mkdirSync(path.dirname(database.file), { recursive: true });
  const adapter = new SharedAdapterFactory(oneConnection(new PrismaBetterSQLite3({ url: database.file })));
  const client = new PrismaClient({ adapter });
  const sql = new Sql(adapter, () => client.$connect());
  // One connection, in the process: nothing to wait in line for.
  return { db: client, sql, liveSql: sql };
}

const connection = processWide("database", connect);
export const db: PrismaClient = connection.db;
/** Direct statements on the client's own connection, for the hot path (lib/db/driver/sql.ts). */
export const sql: Sql = connection.sql;
/**
 * The same, on PostgreSQL connections of their own (SQLite's one connection otherwise), for the statements a live run's
 * followers and its lease wait on, so that a burst of requests on the main pool never holds them up.
 */
export const liveSql: Sql = connection.liveSql;

/**
 * PostgreSQL: a live-path statement sent by name, parsed and planned once per connection, on the live pool itself
 * (Prisma's adapter cannot name statements). `text` numbers its placeholders ($1); pass no dates and read no
 * timestamps, which pg converts in this process's time zone. Needs a session per connection (see
 * docs/configuration.md, "Several instances").
 */
export async function livePrepared<Row extends object>(name: string, text: string, values: unknown[]): Promise<Row[]> {
  const { pools } = connection;
  if (!pools) throw new Error("Prepared statements are for PostgreSQL.");
  return (await pools.live.pool.query<Row>({ name, text, values })).rows;
}

/**
 * A lease renewal hung (on liveSql): its connection may have gone silent, and every idle one with it (pool.ts), so
 * they are dropped, in both pools. Not when the renewal waits for a connection, all of the live pool's in use: that
 * says nothing about the network. True when they were dropped (nothing to drop on SQLite).
 */
export function dropIdleConnectionsAfterHang(): boolean {
  const { pools } = connection;
  if (!pools || pools.live.waiting > 0) return false;
  pools.dropIdle();
  return true;
}

/**
 * SQLite: write-ahead logging, so readers never wait for the writer and a commit appends to the log instead of
 * syncing the database file (synchronous=NORMAL keeps it durable across a crash of the app, not of the machine).
 * The journal mode is kept in the file; synchronous is per connection, so this runs at start-up.
 */
export async function tuneDatabase(): Promise<void> {
  if (provider !== "sqlite") return;
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
}

/**
 * Interactive transactions wait this long for a connection and run this long at most. Prisma's defaults (2 s and
 * 5 s) fail registrations when hundreds of runs share a PostgreSQL pool; a wait is better than a failed tool.
 */
const BUSY_TRANSACTION = { maxWait: 15_000, timeout: 20_000 };

// The async context of start-up (instrumentation-node.ts loads this module first): no request's stores in it.
const outsideRequests = processWide("outsideRequests", () => AsyncLocalStorage.snapshot());

/**
 * An interactive transaction, started outside the request's async context: Prisma keeps its last 100 closed
 * transactions' promises, which before Node 24 carry the request's AsyncLocalStorage stores, and so the request.
 */
export function transaction<T>(
  work: (tx: Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0]) => Promise<T>,
): Promise<T> {
  return outsideRequests(() => db.$transaction(work, BUSY_TRANSACTION));
}

/**
 * Serialise a transaction per owner of `what` (a count and an insert that must not interleave): on SQLite the one
 * connection runs one transaction at a time (lib/db/driver/one-connection.ts); on PostgreSQL, whose transactions run
 * side by side, a transaction-scoped advisory lock on (`what`, the owner's hash) makes the next one wait for this
 * one's commit. `what`: a number of the caller's own.
 */
export async function lockOwner(
  tx: Parameters<Parameters<typeof transaction>[0]>[0],
  what: number,
  ownerId: string | null,
) {
  if (provider === "postgresql")
    await sql.within(tx).execute(`SELECT pg_advisory_xact_lock(${what}, hashtext(?))`, [ownerId ?? ""]);
}
