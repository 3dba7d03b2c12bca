// Global set-up of the `sqlite` Vitest project and of Playwright: one SQLite database migrated for the whole run,
// which each test's new database copies (tests/support/database.ts, `migratedTemplates`).
import { migratedTemplates } from "./database";

export default function migrateSqliteTemplate(): Promise<() => Promise<void>> {
  return migratedTemplates("sqlite");
}
