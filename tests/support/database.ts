import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { plainDatabaseUrl } from "@/lib/settings/environment.mjs";

/**
 * The database the integration suite runs against: SQLite by default, PostgreSQL in the `postgresql` project
 * (vitest.config.ts), whose global setup starts one (tests/support/postgres.ts) or uses TEST_POSTGRES_URL.
 */
export const testProvider: "sqlite" | "postgresql" =
  process.env.TEST_DATABASE === "postgresql" ? "postgresql" : "sqlite";

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
  const url = new URL(plainDatabaseUrl(databaseUrl));
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

/**
 * Create the database a URL names if need be, and apply the migrations to it, as `npm start` does. A database that
 * does not exist yet is a copy of the run's migrated template when its global set-up made one (`migratedTemplates`).
 */
export async function prepareDatabase(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (await copyOfTemplate(databaseUrl)) return;
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, env);
}

/** scripts/migrate.mjs on the database, as `npm start` runs it. */
async function migrate(databaseUrl: string, env: NodeJS.ProcessEnv): Promise<void> {
  // Not spawnSync: the database may be reached through something this process serves (a test's TCP relay).
  await promisify(execFile)("node", ["scripts/migrate.mjs"], {
    env: { ...env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`Migration failed: ${error.stdout}${error.stderr}`);
  });
}

/** Where the migrated templates are: a SQLite file, and a database's name on the test's PostgreSQL server. */
const SQLITE_TEMPLATE = "TOOLSMITH_TEST_SQLITE_TEMPLATE";
const POSTGRES_TEMPLATE = "TOOLSMITH_TEST_POSTGRES_TEMPLATE";

/**
 * Migrate a template database once for the whole run, of the provider under test (`provider`; on PostgreSQL, on the
 * server TEST_POSTGRES_URL names), which `prepareDatabase` copies for each new database: migrating took seconds per
 * server started (`prisma migrate deploy` for SQLite), copying takes milliseconds. The template goes through
 * scripts/migrate.mjs as every database did, so each copy is what the migration makes. Resolves with the teardown.
 */
export async function migratedTemplates(provider = testProvider): Promise<() => Promise<void>> {
  if (provider === "sqlite") {
    const directory = tempDataDir();
    const file = path.join(directory, "template.db");
    await migrate(`file:${file}`, process.env);
    process.env[SQLITE_TEMPLATE] = file;
    return async () => {
      delete process.env[SQLITE_TEMPLATE];
      fs.rmSync(directory, { recursive: true, force: true });
    };
  }
  const url = new URL(freshPostgresUrl());
  url.pathname = `${url.pathname}_template`;
  await ensureDatabase(url.toString());
  await migrate(url.toString(), process.env);
  const name = url.pathname.slice(1);
  process.env[POSTGRES_TEMPLATE] = name;
  return async () => {
    delete process.env[POSTGRES_TEMPLATE];
    url.pathname = "/postgres";
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}"`).finally(() => client.end());
  };
}

/** Make the database a URL names as a copy of the run's migrated template: false when it exists or there is none. */
async function copyOfTemplate(databaseUrl: string): Promise<boolean> {
  const sqliteTemplate = process.env[SQLITE_TEMPLATE];
  if (databaseUrl.startsWith("file:") && sqliteTemplate) {
    const file = databaseUrl.slice("file:".length);
    // Only a new database, named by an absolute path (a relative one is resolved by whoever opens it).
    if (!path.isAbsolute(file) || fs.existsSync(file)) return false;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(sqliteTemplate, file, fs.constants.COPYFILE_EXCL);
    return true;
  }
  const postgresTemplate = process.env[POSTGRES_TEMPLATE];
  if (!databaseUrl.startsWith("postgres") || !postgresTemplate) return false;
  const url = new URL(plainDatabaseUrl(databaseUrl));
  const name = url.pathname.slice(1);
  // Only on the server the template is on.
  if (url.host !== new URL(process.env.TEST_POSTGRES_URL ?? "postgresql://none").host) return false;
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${postgresTemplate}"`);
    return true;
  } finally {
    await client.end();
  }
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
  const client = new pg.Client({ connectionString: plainDatabaseUrl(databaseUrl) });
  await client.connect();
  return {
    query: async <Row>(sql: string, ...params: unknown[]) => {
      let index = 0;
      // Without parameters, the simple protocol, which also runs several statements.
      const result = params.length
        ? await client.query(
            sql.replace(/\?/g, () => `$${++index}`),
            params,
          )
        : await client.query(sql);
      return (Array.isArray(result) ? result.at(-1) : result).rows as Row[];
    },
    close: () => client.end(),
  };
}

/** A trigger that sleeps: `inProgress` resolves once a statement sleeps in it; `remove` drops it. */
interface SleepingTrigger {
  inProgress: () => Promise<void>;
  remove: () => Promise<void>;
}

/**
 * PostgreSQL: make storing one conversation's rows into `table` take `seconds` each (a trigger that sleeps; `when`
 * narrows the rows, a condition on NEW), so that a test can act while such a write is in progress; `thenFail`: and
 * then fail.
 */
export function slowInserts(
  databaseUrl: string,
  {
    table,
    conversationId,
    seconds,
    when = "TRUE",
    thenFail = false,
  }: { table: string; conversationId: string; seconds: number; when?: string; thenFail?: boolean },
): Promise<SleepingTrigger> {
  return sleepingTrigger(databaseUrl, {
    name: `slow_insert_${table.toLowerCase()}`,
    table,
    seconds,
    on: "INSERT",
    forEach: "ROW",
    when: `NEW."conversationId" = '${conversationId}' AND ${when}`,
    thenFail,
  });
}

/**
 * PostgreSQL: make the UPDATEs of `table` whose SQL contains `text` take `seconds` longer before they reach any row
 * (a statement trigger, which locks nothing), as a statement held up on its way to the database is.
 */
export function slowUpdates(
  databaseUrl: string,
  { table, text, seconds }: { table: string; text: string; seconds: number },
): Promise<SleepingTrigger> {
  return sleepingTrigger(databaseUrl, {
    name: `slow_update_${table.toLowerCase()}`,
    table,
    seconds,
    on: "UPDATE",
    forEach: "STATEMENT",
    when: `strpos(current_query(), '${text}') > 0`,
  });
}

async function sleepingTrigger(
  databaseUrl: string,
  {
    name,
    table,
    seconds,
    on,
    forEach,
    when,
    thenFail = false,
  }: {
    name: string;
    table: string;
    seconds: number;
    on: "INSERT" | "UPDATE";
    forEach: "ROW" | "STATEMENT";
    when: string;
    thenFail?: boolean;
  },
): Promise<SleepingTrigger> {
  const client = await sqlClient(databaseUrl);
  const fail = thenFail ? ` RAISE EXCEPTION 'forced failure after a slow write';` : "";
  await client.query(`CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF ${when} THEN PERFORM pg_sleep(${seconds});${fail} END IF; RETURN NEW; END $$;
    CREATE TRIGGER ${name} BEFORE ${on} ON "${table}" FOR EACH ${forEach} EXECUTE FUNCTION ${name}();`);
  return {
    async inProgress() {
      // Each test file has its own database, so its one sleeping statement is this write (files run side by side).
      const sleeping = async () =>
        Number(
          (
            await client.query<{ n: string }>(
              `SELECT count(*) AS "n" FROM pg_stat_activity WHERE "wait_event" = 'PgSleep' AND "datname" = current_database()`,
            )
          )[0].n,
        );
      const deadline = Date.now() + 10_000;
      while ((await sleeping()) === 0) {
        if (Date.now() > deadline) throw new Error(`No ${on} on ${table} began within 10 s.`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async remove() {
      await client.query(`DROP TRIGGER ${name} ON "${table}"`);
      await client.close();
    },
  };
}
