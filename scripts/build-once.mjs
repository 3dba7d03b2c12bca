// `npm start` serves the production build: build first when there is none, or when a source file is newer.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const SOURCES = ["app", "components", "lib", "public", "next.config.ts", "package.json", "postcss.config.mjs"];
const buildId = ".next/BUILD_ID";

function newestChange(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  if (entry === path.join("lib", "generated")) return 0;
  return Math.max(0, ...fs.readdirSync(entry).map((name) => newestChange(path.join(entry, name))));
}

const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
if (built > Math.max(...SOURCES.map(newestChange))) process.exit(0);
const result = spawnSync("npx", ["next", "build"], { stdio: "inherit" });
process.exit(result.status ?? 1);
