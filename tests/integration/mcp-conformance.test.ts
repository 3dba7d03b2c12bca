import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { testProvider } from "../support/database";
import { ModelServer } from "../support/model-server";

/*
 * The official MCP conformance suite against /api/mcp, for the scenarios that apply to any server. The suite needs
 * Node 22 (it imports fs.globSync) and sends no credentials: it runs on Node 22's npm package, fetched once into
 * the system's temporary folder when the tests themselves run on an older Node, against a loopback proxy that adds
 * the API token to every request and changes nothing else (Host and Origin go through as the suite sent them).
 */

const run = promisify(execFile);
const NODE_22 = "22.23.3";
const SUITE = path.join(process.cwd(), "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

const model = new ModelServer();
let app: AppServer;
let proxy: http.Server;
let proxyUrl: string;
let node22: string;

/**
 * A Node 22 binary: this one, or the npm package of this platform's (which declares a `node` bin, so it is never a
 * dependency of the project: npm scripts would run it instead of the Node the native addons were built for).
 */
async function nodeBinary(): Promise<string> {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const name = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
  const folder = path.join(os.tmpdir(), `toolsmith-${name}-${NODE_22}`);
  const binary = path.join(folder, "node_modules", name, "bin", "node");
  if (fs.existsSync(binary)) return binary;
  // Installed beside the folder, then renamed into place: an install cut short leaves nothing the next run trusts.
  const partial = `${folder}.${process.pid}`;
  const flags = ["--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund"];
  await run("npm", ["install", "--prefix", partial, ...flags, `${name}@${NODE_22}`]);
  try {
    fs.renameSync(partial, folder);
  } catch (error) {
    // Another run put it there first.
    if (!fs.existsSync(binary)) throw error;
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return binary;
}

/** Forwards every request to the app with `Authorization: Bearer <token>`, streaming both ways. */
function tokenProxy(target: URL, token: string): http.Server {
  return http.createServer((request, response) => {
    const upstream = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: request.url,
        method: request.method,
        headers: { ...request.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
}

// The protocol, not the database, is under test: the SQLite project runs it.
describe.runIf(testProvider === "sqlite")("the MCP conformance suite", () => {
  beforeAll(async () => {
    [node22] = await Promise.all([nodeBinary(), model.start()]);
    app = scriptedApp(model.url);
    await app.start();
    const { token } = await new Api(app.url).createToken("conformance");
    const tool = await fetch(`${app.url}/api/tools`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "add_numbers",
        description: "Add two numbers.",
        parameters_schema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"],
        },
        code: "function run({ a, b }) { return a + b; }",
        examples: [{ input: { a: 2, b: 3 }, expected_output: 5 }],
      }),
    });
    expect(tool.status).toBe(201);
    proxy = tokenProxy(new URL(app.url), token);
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/mcp`;
  }, 300_000);
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await app?.stop();
    await model.stop();
  });

  it.each(SCENARIOS)("passes %s", async (scenario) => {
    const { stdout } = await run(node22, [SUITE, "server", "--url", proxyUrl, "--scenario", scenario]).catch(
      (error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${scenario} failed:\n${error.stdout ?? ""}${error.stderr ?? error.message}`);
      },
    );
    const [, passed, total, failed] = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout) ?? [];
    expect(Number(total), stdout).toBeGreaterThan(0);
    expect({ passed: Number(passed), failed: Number(failed) }, stdout).toEqual({ passed: Number(total), failed: 0 });
  });
});
