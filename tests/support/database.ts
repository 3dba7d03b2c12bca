import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";

/**
 * The database the integration suite runs against: SQLite by default, PostgreSQL in the `postgresql` project
 * (vitest.config.ts), whose global setup starts one (tests/support/postgres.ts) or uses TEST_POSTGRES_URL.
 */
export const testProvider: "sqlite" | "postgresql" = process.env.TEST_DATABASE === "postgresql" ? "postgresql" : "sqlite";

/** A URL for a fresh, empty database of the provider under test; PostgreSQL's is created by `ensureDatabase` (or `prepareDatabase`). */
export function freshDatabaseUrl(): string {
  return testProvider === "sqlite" ? freshSqliteUrl() : freshPostgresUrl();
}

/** A temporary directory for one test file's database or files. */
export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-test-"));
}

export const freshSqliteUrl = () => `file:${path.join(tempDataDir(), "test.db")}`;

/** A new database's URL on the test server (TEST_POSTGRES_URL). */
export function freshPostgresUrl(): string {
  const server = process.env.TEST_POSTGRES_URL;
  if (!server) throw new Error("TEST_POSTGRES_URL is not set: the postgresql project's global setup sets it.");
  const url = new URL(server);
  url.pathname = `/toolsmith_${randomBytes(6).toString("hex")}`;
  return url.toString();
}

/** Create the PostgreSQL database a URL names if it does not exist yet; nothing to do for SQLite. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  if (!databaseUrl.startsWith("postgres")) return;
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

/** Create the database a URL names if need be, and apply the migrations to it, as `npm start` does. */
export async function prepareDatabase(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await ensureDatabase(databaseUrl);
  // Not spawnSync: the database may be reached through something this process serves (a test's TCP relay).
  await promisify(execFile)("node", ["scripts/migrate.mjs"], { env: { ...env, DATABASE_URL: databaseUrl }, encoding: "utf8" }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`Migration failed: ${error.stdout}${error.stderr}`);
  });
}

/** Plain SQL against a test's database, for checks the API does not expose; `?` placeholders on both providers. */
export interface SqlClient {
  query<Row>(sql: string, ...params: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

export async function sqlClient(databaseUrl: string): Promise<SqlClient> {
  if (databaseUrl.startsWith("file:")) {
    const database = new Database(databaseUrl.slice("file:".length));
    return {
      query: async <Row>(sql: string, ...params: unknown[]) => {
        const statement = database.prepare(sql);
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
      },
      close: async () => void database.close(),
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    query: async <Row>(sql: string, ...params: unknown[]) => {
      let index = 0;
      // Without parameters, the simple protocol, which also runs several statements.
      const result = params.length ? await client.query(sql.replace(/\?/g, () => `$${++index}`), params) : await client.query(sql);
      return (Array.isArray(result) ? result.at(-1) : result).rows as Row[];
    },
    close: () => client.end(),
  };
}
