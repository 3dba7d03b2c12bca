import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  // The SQLite migrations; PostgreSQL's are applied by scripts/migrate.mjs (see there why).
  migrations: { path: "prisma/sqlite/migrations" },
  async adapter() {
    return new PrismaBetterSQLite3({ url: process.env.DATABASE_URL ?? "file:./data/toolsmith.db" });
  },
});
