import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { databaseFile } from "@/lib/config";
import { PrismaClient } from "@/lib/generated/prisma/client";

function connect(): PrismaClient {
  const file = databaseFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: file }) });
}

// One client per process; kept on globalThis so that dev-mode reloads reuse it.
const globalDb = globalThis as unknown as { toolsmithDb?: PrismaClient };
export const db: PrismaClient = (globalDb.toolsmithDb ??= connect());

/**
 * Write-ahead logging: readers never wait for the writer, and a commit appends to the log instead of syncing the
 * database file (synchronous=NORMAL keeps it durable across a crash of the app, not of the machine). The journal
 * mode is kept in the file; synchronous is per connection, so this runs at start-up.
 */
export async function tuneDatabase(): Promise<void> {
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
}
