import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { McpServerSpec } from "@/lib/mcp-client";
import { freePort, tempDataDir } from "./app-server";
import { freshDatabaseUrl } from "./database";

const EVERYTHING = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const FIXTURE = "tests/support/mcp-fixture-server.mjs";

/** server-everything, the reference third-party server, over stdio (the operator's: stdio is theirs alone). */
export const everythingStdio = (env: Record<string, string> = {}): McpServerSpec => ({
  name: "everything",
  trusted: true,
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  env,
});

/** The fixture server (tests/support/mcp-fixture-server.mjs) over stdio: paging, list_changed, misbehaviour. */
export const fixtureStdio = (name = "fixture", env: Record<string, string> = {}): McpServerSpec => ({
  name,
  trusted: true,
  command: process.execPath,
  args: [FIXTURE],
  env,
});

/** server-everything over Streamable HTTP on `port` (else a free one), until `stop`. */
export async function startEverythingHttp(port?: number): Promise<{ url: string; stop: () => Promise<void> }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${output}`)), 20_000);
    child.stderr!.on("data", (chunk) => {
      output += chunk;
      if (output.includes("listening on port")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`server-everything exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

/**
 * A test's database, profiles file and secret, for the app it starts and for this process alike: the in-process half
 * (serversForRun, addMcpServer) reads what the server reads.
 */
export function sharedWithApp(config: string, secret: string): { databaseUrl: string; configFile: string } {
  const databaseUrl = freshDatabaseUrl();
  const configFile = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(configFile, config);
  process.env.DATABASE_URL = databaseUrl;
  process.env.TOOLSMITH_SECRET = secret;
  process.env.TOOLSMITH_CONFIG = configFile;
  return { databaseUrl, configFile };
}
