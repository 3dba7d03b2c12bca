// Applies pending migrations to the database that DATABASE_URL names (see docs/configuration.md, "Migrations"):
// - SQLite (`file:`, the default): `prisma migrate deploy` over prisma/sqlite/migrations, after creating the
//   file's directory, holding the lock that keeps it from a running server (lib/db/driver/sqlite-lock.mjs);
// - PostgreSQL (`postgresql://`): the files of prisma/postgresql/migrations, here. Prisma 6's JS schema engine
//   cannot migrate PostgreSQL through @prisma/adapter-pg ("Column type 'name' could not be deserialized",
//   https://github.com/prisma/prisma/issues/27403), and its native engine is a download this app does not require.
//   So each pending file runs in one transaction and is recorded in `_prisma_migrations` as Prisma records it (same
//   table, SHA-256 checksum, name, timestamps, one applied step), under Prisma's own advisory lock: several
//   instances starting at once apply each migration once, and `prisma migrate deploy` with Prisma's regular engine
//   later sees them as applied.
// The Prisma CLI does not read .env when prisma.config.ts exists, so this script reads the env files the server
// reads, as Next does in production (.env.production.local, .env.local, .env.production, .env), so that both use
// one database.
import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import nextEnv from "@next/env";
import pg from "pg";
import { takeSqliteLock } from "../lib/db/driver/sqlite-lock.mjs";
import { environment, SettingsError } from "../lib/settings/environment.mjs";

nextEnv.loadEnvConfig(process.cwd(), false, { info: () => {}, error: console.error });
let url;
try {
  url = environment().DATABASE_URL;
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`Cannot migrate: ${error.message}`);
  process.exit(1);
}

/** The advisory lock key `prisma migrate` takes on PostgreSQL. */
const PRISMA_MIGRATE_LOCK = 72707369;

async function migratePostgresql() {
  const directory = path.resolve("prisma", "postgresql", "migrations");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query(
      `SELECT "migration_name", "finished_at" FROM "_prisma_migrations" WHERE "rolled_back_at" IS NULL`,
    );
    const failed = rows.find((row) => row.finished_at === null);
    if (failed)
      throw new Error(
        `The migration ${failed.migration_name} failed earlier; resolve it (prisma migrate resolve) before applying more.`,
      );
    const applied = new Set(rows.map((row) => row.migration_name));
    const pending = fs
      .readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !applied.has(entry.name))
      .map((entry) => entry.name)
      .sort();
    for (const name of pending) {
      const script = fs.readFileSync(path.join(directory, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(script).digest("hex");
      await client.query("BEGIN");
      try {
        const started = new Date();
        await client.query(script);
        await client.query(
          `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count") VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), checksum, name, started],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`The migration ${name} failed and was rolled back: ${error.message}`);
      }
    }
    console.log(
      pending.length
        ? `Applied ${pending.length} PostgreSQL migration(s): ${pending.join(", ")}.`
        : "The PostgreSQL database is up to date.",
    );
  } finally {
    await client.end();
  }
}

if (/^postgres(ql)?:\/\//.test(url)) {
  await migratePostgresql().catch((error) => {
    console.error(`Migrating PostgreSQL failed: ${error.message}`);
    process.exit(1);
  });
} else {
  // Not beside a running server, which would find its schema changed under it (lib/db/driver/sqlite-lock.mjs): the lock
  // is held until the migration is done. The lock also makes the file's directory.
  const taken = await takeSqliteLock(path.resolve(url.slice("file:".length)));
  if ("problem" in taken) {
    console.error(`Cannot migrate: ${taken.problem}`);
    process.exit(1);
  }
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], {
    stdio: "inherit",
    env: { ...process.env, DATABASE_URL: url },
  });
  process.exit(result.status ?? 1);
}
