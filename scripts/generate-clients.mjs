// Generates the Prisma client of each provider from the one schema, prisma/schema.prisma (written for SQLite):
// lib/generated/sqlite and lib/generated/postgresql. The PostgreSQL schema is derived, never edited by hand: the
// same models with `provider = "postgresql"`; it is written to lib/generated/postgresql.prisma, where
// `prisma migrate diff` can read it to write PostgreSQL migrations (see docs/configuration.md, "Migrations").
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const schema = fs.readFileSync(path.join(root, "prisma", "schema.prisma"), "utf8");

/** The PostgreSQL variant of the schema: its datasource and its client's output differ, the models do not. */
export function postgresqlSchema(text) {
  const derived = text
    .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
    .replace(/url\s*=\s*"file:[^"]*"/, 'url      = "postgresql://localhost/toolsmith"')
    .replace(/output\s*=\s*"[^"]*"/, 'output     = "./postgresql"');
  if (derived === text || !derived.includes('provider = "postgresql"'))
    throw new Error("prisma/schema.prisma no longer has the SQLite datasource this script rewrites.");
  return `// Derived from prisma/schema.prisma by scripts/generate-clients.mjs: do not edit.\n${derived}`;
}

function generate(schemaFile) {
  const result = spawnSync("npx", ["prisma", "generate", "--schema", schemaFile], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

fs.mkdirSync(path.join(root, "lib", "generated"), { recursive: true });
const postgresqlFile = path.join(root, "lib", "generated", "postgresql.prisma");
fs.writeFileSync(postgresqlFile, postgresqlSchema(schema));
generate("prisma/schema.prisma");
generate(postgresqlFile);
