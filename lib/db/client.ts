import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@/lib/generated/prisma/client";

export const DEFAULT_DATABASE_URL = "file:./data/toolsmith.db";

/** The SQLite file behind a `file:` URL, resolved from the working directory as the Prisma CLI does. */
export function databaseFile(url = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL): string {
  if (!url.startsWith("file:")) throw new Error(`DATABASE_URL must be a file: URL for SQLite; got "${url}".`);
  return path.resolve(url.slice("file:".length));
}

function connect(): PrismaClient {
  const file = databaseFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: file }) });
}

// One client per process; kept on globalThis so that dev-mode reloads reuse it.
const globalDb = globalThis as unknown as { toolsmithDb?: PrismaClient };
export const db: PrismaClient = (globalDb.toolsmithDb ??= connect());
