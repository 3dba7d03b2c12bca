// One server at a time on a SQLite database, and no migration under it: a lock file beside the database, held by the
// server and by scripts/migrate.mjs (docs/architecture.md, "SQLite: one server at a time").
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";

/** How long to wait for the lock: longer than a stopping server takes to hand its runs over (server.mjs). */
const WAIT_MS = 5_000;
const RETRY_MS = 100;

/**
 * Take the lock of the SQLite database `file`, waiting for a server that is stopping. Resolves with the lock's
 * connection, to keep open (and referenced: a connection closes when collected) for as long as the lock is needed,
 * or with what stops the caller: another server uses the database, or the lock cannot be taken.
 * @param {string} file
 * @returns {Promise<{ lock: Database.Database } | { problem: string }>}
 */
export async function takeSqliteLock(file) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The same database reached through a symbolic link to its directory is locked by the same file.
  const lockFile = path.join(fs.realpathSync(path.dirname(file)), `${path.basename(file)}.server-lock`);
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    let lock;
    try {
      lock = tryLock(lockFile);
    } catch (error) {
      return {
        problem: `cannot lock ${lockFile}, which keeps a second server off the SQLite database ${file}: ${error.message}`,
      };
    }
    if (lock) return { lock };
    if (performance.now() > deadline) {
      return {
        problem:
          `another Toolsmith server uses the SQLite database ${file} (it holds ${lockFile}; SQLite serves one server at a ` +
          "time). Stop that one, or run several instances on PostgreSQL (DATABASE_URL=postgresql://…).",
      };
    }
    await sleep(RETRY_MS);
  }
}

/**
 * The lock's connection, or undefined when another process holds it.
 * @param {string} lockFile
 * @returns {Database.Database | undefined}
 */
function tryLock(lockFile) {
  // No busy wait inside SQLite, which would block the event loop: takeSqliteLock tries again.
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
    if (/** @type {{ code?: string }} */ (error).code === "SQLITE_BUSY") return undefined;
    throw error;
  }
}
