import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { processWide } from "@/lib/process-wide";

/** How long a server waits for the lock: longer than a stopping server takes to hand its runs over (server.mjs). */
const WAIT_MS = 5_000;
const RETRY_MS = 100;

/**
 * SQLite serves one server at a time. A second server on the same database would take over every running run of the
 * first as it starts (with SQLite, lib/agent/claims.ts takes the runs left running for its predecessor's, since no
 * other process could be running them) and run them twice. So the server holds a lock beside the database for as
 * long as it runs: SQLite's own exclusive lock on a file of its own, which the system releases when the process ends,
 * however it ends. A server started while another is stopping waits for it; one started beside a running server
 * stops before it takes any run. Resolves with what stops it, if anything.
 */
export async function lockSqliteDatabase(file: string): Promise<string | undefined> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The same database reached through a symbolic link to its directory is locked by the same file.
  const lockFile = path.join(fs.realpathSync(path.dirname(file)), `${path.basename(file)}.server-lock`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let held: Database.Database | undefined;
    try {
      held = processWide("sqliteLock", () => takeLock(lockFile));
    } catch (error) {
      return `cannot lock ${lockFile}, which keeps a second server off the SQLite database ${file}: ${(error as Error).message}`;
    }
    if (held) return undefined;
    if (Date.now() > deadline) {
      return (
        `another Toolsmith server uses the SQLite database ${file} (it holds ${lockFile}; SQLite serves one server at a ` +
        "time). Stop that one, or run several instances on PostgreSQL (DATABASE_URL=postgresql://…)."
      );
    }
    await sleep(RETRY_MS);
  }
}

/** The lock's connection, kept open (and referenced: a connection closes when collected); undefined when another process has it. */
function takeLock(lockFile: string): Database.Database | undefined {
  // No busy wait inside SQLite, which would block the event loop: lockSqliteDatabase tries again.
  const lock = new Database(lockFile, { timeout: 0 });
  try {
    // No journal file left beside it: the lock's database holds nothing.
    lock.pragma("journal_mode = MEMORY");
    // In exclusive locking mode, a connection keeps the lock of its first write transaction until it closes.
    lock.pragma("locking_mode = EXCLUSIVE");
    lock.exec("BEGIN EXCLUSIVE; COMMIT");
    return lock;
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === "SQLITE_BUSY") return undefined;
    throw error;
  }
}
