import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { processWide } from "@/lib/process-wide";

/**
 * SQLite serves one server at a time. A second server on the same database would take over every running run of the
 * first as it starts (with SQLite, lib/agent/claims.ts takes the runs left running for its predecessor's, since no
 * other process could be running them) and run them twice. So the server holds a lock beside the database for as
 * long as it runs: SQLite's own exclusive lock on a file of its own, which the system releases when the process ends,
 * however it ends. A second server finds it taken and stops before it takes any run. Returns what stops it, if so.
 */
export function lockSqliteDatabase(file: string): string | undefined {
  const held = processWide("sqliteLock", () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // No wait: the lock is held for a server's whole life.
    const lock = new Database(`${file}.server-lock`, { timeout: 0 });
    try {
      // In exclusive locking mode, a connection keeps the lock of its first write transaction until it closes.
      lock.pragma("locking_mode = EXCLUSIVE");
      lock.exec("BEGIN EXCLUSIVE; COMMIT");
      return lock;
    } catch (error) {
      lock.close();
      if ((error as { code?: string }).code === "SQLITE_BUSY") return undefined;
      throw error;
    }
  });
  if (held) return undefined;
  return (
    `another Toolsmith server uses the SQLite database ${file} (SQLite serves one server at a time). ` +
    "Stop that one, or run several instances on PostgreSQL (DATABASE_URL=postgresql://…)."
  );
}
