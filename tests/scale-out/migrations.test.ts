// scripts/migrate.mjs on PostgreSQL: each committed migration applied once, recorded as Prisma records it, even when
// several instances start at the same moment. (The `postgresql` project runs this file.)
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Api } from "../support/api";
import { AppServer } from "../support/app-server";
import { ensureDatabase, freshPostgresUrl, sqlClient } from "../support/database";

const MIGRATIONS = path.resolve("prisma", "postgresql", "migrations");

/** scripts/migrate.mjs on `databaseUrl`, or, when none is given, on what the env files in `cwd` say. */
function migrate(
  databaseUrl: string | undefined,
  cwd = process.cwd(),
): Promise<{ code: number | null; output: string }> {
  // As `npm start` runs it: not in Vitest's test mode, in which Next's env files leave .env.local out.
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: databaseUrl };
  delete env.NODE_ENV;
  if (databaseUrl === undefined) delete env.DATABASE_URL;
  return new Promise((resolve) => {
    const child = spawn("node", [path.resolve("scripts", "migrate.mjs")], { cwd, env: env as NodeJS.ProcessEnv });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("PostgreSQL migrations", () => {
  it("are applied once by instances starting together, each recorded in _prisma_migrations with its checksum", async () => {
    const databaseUrl = freshPostgresUrl();
    await ensureDatabase(databaseUrl);
    const runs = await Promise.all([migrate(databaseUrl), migrate(databaseUrl), migrate(databaseUrl)]);
    expect(runs.map((run) => run.code)).toEqual([0, 0, 0]);
    expect(runs.filter((run) => run.output.includes("Applied"))).toHaveLength(1);

    const names = fs
      .readdirSync(MIGRATIONS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const database = await sqlClient(databaseUrl);
    const recorded = await database.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
      rolled_back_at: Date | null;
    }>(
      `SELECT "migration_name", "checksum", "finished_at", "applied_steps_count", "rolled_back_at" FROM "_prisma_migrations" ORDER BY "migration_name"`,
    );
    const tables = await database.query<{ tablename: string }>(
      `SELECT "tablename" FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
    );
    await database.close();
    expect(recorded.map((row) => row.migration_name)).toEqual(names);
    for (const row of recorded) {
      const script = fs.readFileSync(path.join(MIGRATIONS, row.migration_name, "migration.sql"));
      expect(row).toMatchObject({
        checksum: createHash("sha256").update(script).digest("hex"),
        applied_steps_count: 1,
        rolled_back_at: null,
      });
      expect(row.finished_at).toBeInstanceOf(Date);
    }
    expect(tables.map((table) => table.tablename)).toEqual(
      expect.arrayContaining(["Conversation", "Event", "Run", "Tool", "LibrarianDocument", "_prisma_migrations"]),
    );

    expect((await migrate(databaseUrl)).output).toContain("up to date");
  });

  it("go to the database of DATABASE_URL in .env.local, which the server reads too", async () => {
    const databaseUrl = freshPostgresUrl();
    await ensureDatabase(databaseUrl);
    const app = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-env-"));
    for (const shared of ["prisma", "node_modules", "package.json", "prisma.config.ts"])
      fs.symlinkSync(path.resolve(shared), path.join(app, shared));
    fs.writeFileSync(path.join(app, ".env.local"), `DATABASE_URL=${databaseUrl}\n`);
    const run = await migrate(undefined, app);
    const database = await sqlClient(databaseUrl);
    const tables = await database.query<{ tablename: string }>(
      `SELECT "tablename" FROM pg_tables WHERE schemaname = 'public'`,
    );
    await database.close();
    fs.rmSync(app, { recursive: true, force: true });
    expect(run.code).toBe(0);
    expect(tables.map((table) => table.tablename)).toEqual(
      expect.arrayContaining(["Conversation", "Event", "Run", "_prisma_migrations"]),
    );
  });

  it("go to SEAT's DATABASE_URL, postgresql+asyncpg://, and the server starts on it", async () => {
    const plain = freshPostgresUrl();
    await ensureDatabase(plain);
    const seatUrl = plain.replace(/^postgresql:/, "postgresql+asyncpg:");
    const run = await migrate(seatUrl);
    expect(run).toMatchObject({ code: 0, output: expect.stringContaining("Applied") });
    const app = new AppServer({ DATABASE_URL: seatUrl, TOOLSMITH_SECRET: "seat-url-test" });
    try {
      await app.start({ migrated: true });
      const api = new Api(app.url);
      const { id } = await api.createConversation();
      const database = await sqlClient(plain);
      const stored = await database.query<{ id: string }>(`SELECT "id" FROM "Conversation"`);
      await database.close();
      expect(stored).toEqual([{ id }]);
    } finally {
      await app.stop();
    }
  });

  it("stop on a failed migration and leave nothing of it behind", async () => {
    const databaseUrl = freshPostgresUrl();
    await ensureDatabase(databaseUrl);
    const database = await sqlClient(databaseUrl);
    // A table in the way of the first migration's CREATE TABLE "Conversation".
    await database.query(`CREATE TABLE "Conversation" ("in_the_way" INTEGER)`);
    const failed = await migrate(databaseUrl);
    const recorded = await database.query(`SELECT * FROM "_prisma_migrations"`);
    const apiTokens = await database.query(`SELECT 1 FROM pg_tables WHERE tablename = 'ApiToken'`);
    await database.close();
    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(
      /20261123010000_init failed and was rolled back: relation "Conversation" already exists/,
    );
    expect(recorded).toEqual([]);
    expect(apiTokens).toEqual([]);
  });
});
