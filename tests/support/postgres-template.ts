// Global set-up of the `postgresql` Vitest project, after tests/support/postgres.ts: one PostgreSQL database migrated
// for the whole run, which each test's new database copies (CREATE DATABASE … TEMPLATE; tests/support/database.ts).
import { migratedTemplates } from "./database";

export default function migratePostgresTemplate(): Promise<() => Promise<void>> {
  return migratedTemplates("postgresql");
}
