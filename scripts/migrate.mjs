// Applies pending migrations to the database that DATABASE_URL names, creating its directory first.
// The Prisma CLI does not read .env when prisma.config.ts exists, so this script does.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

if (fs.existsSync(".env")) process.loadEnvFile(".env");
const url = process.env.DATABASE_URL ?? "file:./data/toolsmith.db";
if (url.startsWith("file:")) fs.mkdirSync(path.dirname(path.resolve(url.slice(5))), { recursive: true });
const result = spawnSync("npx", ["prisma", "migrate", "deploy"], { stdio: "inherit", env: { ...process.env, DATABASE_URL: url } });
process.exit(result.status ?? 1);
