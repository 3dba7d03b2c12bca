import type { Server } from "node:http";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import {
  KEEP_ALIVE_HINT_SECONDS,
  KEEP_ALIVE_MS,
  listen,
  missingServerFlags,
  refuseBeyondCapacity,
  refuseUndecodableUrl,
  undecodablePath,
} from "@/server-runtime.mjs";

const node22 = new Set(["--experimental-async-context-frame", "--max-old-space-size"]);
const node20 = new Set(["--max-old-space-size"]);

describe("the server's Node flags", () => {
  it("asks for async context frames where the runtime has them behind a flag, and a heap cap", () => {
    expect(missingServerFlags({ env: {}, execArgv: [], version: "22.23.3", knownFlags: node22 })).toEqual([
      "--experimental-async-context-frame",
      "--max-old-space-size=384",
    ]);
    expect(missingServerFlags({ env: {}, execArgv: [], version: "20.20.2", knownFlags: node20 })).toEqual([
      "--max-old-space-size=384",
    ]);
    // The default from Node 24 on.
    expect(missingServerFlags({ env: {}, execArgv: [], version: "24.1.0", knownFlags: node22 })).toEqual([
      "--max-old-space-size=384",
    ]);
  });

  it("keeps what the process was started with, on the command line or in NODE_OPTIONS", () => {
    const started = ["--experimental-async-context-frame", "--max-old-space-size=384"];
    expect(missingServerFlags({ env: {}, execArgv: started, version: "22.23.3", knownFlags: node22 })).toEqual([]);
    expect(
      missingServerFlags({
        env: { NODE_OPTIONS: "--max-old-space-size=2048 --experimental-async-context-frame" },
        execArgv: [],
        version: "22.23.3",
        knownFlags: node22,
      }),
    ).toEqual([]);
    // V8's spelling with underscores, and a flag turned off on purpose.
    expect(
      missingServerFlags({
        env: { NODE_OPTIONS: "--max_old_space_size=4096 --no-experimental-async-context-frame" },
        execArgv: [],
        version: "22.23.3",
        knownFlags: node22,
      }),
    ).toEqual([]);
  });

  it("takes the heap cap from TOOLSMITH_HEAP_MB, 0 for none, and refuses a value that is not a size", () => {
    expect(
      missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "1024" }, execArgv: [], version: "20.20.2", knownFlags: node20 }),
    ).toEqual(["--max-old-space-size=1024"]);
    expect(
      missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "0" }, execArgv: [], version: "20.20.2", knownFlags: node20 }),
    ).toEqual([]);
    expect(
      missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "" }, execArgv: [], version: "20.20.2", knownFlags: node20 }),
    ).toEqual(["--max-old-space-size=384"]);
    expect(() =>
      missingServerFlags({ env: { TOOLSMITH_HEAP_MB: "lots" }, execArgv: [], version: "20.20.2", knownFlags: node20 }),
    ).toThrow('TOOLSMITH_HEAP_MB must be an integer, 0 or more; got "lots".');
  });
});

/** Node 22.12 and later can share a port between listening sockets (SO_REUSEPORT), on Linux here. */
const [major, minor] = process.versions.node.split(".").map(Number);
const sharesPorts = process.platform === "linux" && (major > 22 || (major === 22 && minor >= 12));

const ok = (_request: unknown, response: { end(body: string): void }) => response.end("ok");
const close = (servers: Server[]) =>
  Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));

/**
 * How many of `count` connections, all waiting before the event loop's next turn, the servers accept in the turn
 * that accepts the first one (the loop is held while they connect, as a loaded server's turns hold it).
 */
async function acceptedInOneTurn(servers: Server[], count: number): Promise<number> {
  let accepted = 0;
  const inFirstTurn = new Promise<number>((resolve) => {
    for (const server of servers)
      server.on("connection", () => accepted++ === 0 && setImmediate(() => resolve(accepted)));
  });
  const { port } = servers[0].address() as net.AddressInfo;
  const clients = Array.from({ length: count }, () => net.connect(port, "127.0.0.1"));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  const result = await inFirstTurn;
  clients.forEach((client) => client.destroy());
  return result;
}

describe("the server's listening sockets", () => {
  it.runIf(sharesPorts)(
    "accepts waiting connections on several sockets in one turn of the event loop, where one socket takes one",
    async () => {
      const one = await listen(ok, { port: 0, host: "127.0.0.1", sockets: 1 });
      const several = await listen(ok, { port: 0, host: "127.0.0.1" });
      try {
        expect(one).toHaveLength(1);
        expect(several).toHaveLength(8);
        expect(await acceptedInOneTurn(one, 16)).toBe(1);
        // 16 connections spread over 8 sockets by the kernel's hash of their addresses.
        expect(await acceptedInOneTurn(several, 16)).toBeGreaterThan(1);
        const response = await fetch(`http://127.0.0.1:${(several[0].address() as net.AddressInfo).port}/`);
        expect(await response.text()).toBe("ok");
      } finally {
        await close([...one, ...several]);
      }
    },
  );

  it.runIf(!sharesPorts)("listens on one socket where the runtime cannot share a port", async () => {
    const servers = await listen(ok, { port: 0, host: "127.0.0.1" });
    try {
      expect(servers).toHaveLength(1);
      expect(await (await fetch(`http://127.0.0.1:${(servers[0].address() as net.AddressInfo).port}/`)).text()).toBe(
        "ok",
      );
    } finally {
      await close(servers);
    }
  });

  it("tells clients to keep an idle connection 5 s and keeps it far longer, so that a client always closes first", async () => {
    const servers = await listen(ok, { port: 0, host: "127.0.0.1" });
    try {
      // undici keeps it 2 s less than it is told; a late event loop, the client's or the server's, eats the rest.
      expect(KEEP_ALIVE_MS - KEEP_ALIVE_HINT_SECONDS * 1000).toBeGreaterThanOrEqual(60_000);
      for (const server of servers) expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_MS);
      const response = await fetch(`http://127.0.0.1:${(servers[0].address() as net.AddressInfo).port}/`);
      expect(response.headers.get("keep-alive")).toBe(`timeout=${KEEP_ALIVE_HINT_SECONDS}`);
      expect(await response.text()).toBe("ok");
    } finally {
      await close(servers);
    }
  });

  // Another Toolsmith on the port shares it (SO_REUSEPORT): binding the port alone first is what refuses it.
  it.each([
    ["a server", false],
    ["a server that shares its port", true],
  ])("refuses a port %s listens on, instead of sharing it", async (_, reusePort) => {
    const other = net.createServer();
    await new Promise<void>((resolve) =>
      other.listen({ port: 0, host: "127.0.0.1", reusePort: reusePort && sharesPorts }, resolve),
    );
    try {
      await expect(listen(ok, { port: (other.address() as net.AddressInfo).port, host: "127.0.0.1" })).rejects.toThrow(
        /EADDRINUSE/,
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});

describe("addresses Next cannot decode", () => {
  it.each(["/c/%", "/s/%E0%A4%A", "/api/share/%", "/api/tools/%C0%AF", "/c/%ZZ?x=1"])(
    "finds the path of %s undecodable",
    (url) => expect(undecodablePath(url)).toBe(true),
  );

  // Next reads a query string with URLSearchParams, which keeps what it cannot decode: not refused.
  it.each(["/", "/c/abc", "/s/%E0%A4%A4", "/api/tools?q=%", "/api/tools?q=%FF&x=a+b", "/a%2Fb?c=%E2%82%AC"])(
    "decodes the path of %s",
    (url) => expect(undecodablePath(url)).toBe(false),
  );

  it("answers 400 before the app: JSON under /api, text elsewhere, with the app's security headers", async () => {
    let reached = 0;
    let secure = false;
    const [server] = await listen(
      (request, response) => {
        if (refuseUndecodableUrl(request, response, { secure })) return;
        reached++;
        response.end("app");
      },
      { port: 0, host: "127.0.0.1", sockets: 1 },
    );
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      const api = await fetch(`${base}/api/share/%`);
      expect(api.status).toBe(400);
      expect(api.headers.get("content-type")).toBe("application/json");
      expect(await api.json()).toEqual({
        error: { code: "bad_request", message: expect.stringContaining(`The address's path cannot be decoded`) },
      });
      for (const [name, value] of [
        ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
        ["x-content-type-options", "nosniff"],
        ["x-frame-options", "DENY"],
        ["referrer-policy", "same-origin"],
      ])
        expect(api.headers.get(name)).toBe(value);
      expect(api.headers.get("strict-transport-security")).toBeNull();

      secure = true;
      const page = await fetch(`${base}/c/%?x=1`);
      expect(page.status).toBe(400);
      expect(page.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(await page.text()).toMatch(/^400 Bad Request: The address's path cannot be decoded/);
      expect(page.headers.get("strict-transport-security")).toBe(STRICT_TRANSPORT_SECURITY);
      expect(reached).toBe(0);
      expect(await (await fetch(`${base}/c/abc?q=%`)).text()).toBe("app");
      expect(reached).toBe(1);
    } finally {
      await close([server]);
    }
  });
});

describe("an instance at capacity", () => {
  it("answers a request past its capacity 503 with Retry-After before the app, and serves again once one ends", async () => {
    const refuseWhenFull = refuseBeyondCapacity(2);
    const held: (() => void)[] = [];
    const [server] = await listen(
      (request, response) => {
        if (refuseWhenFull(request, response, { secure: false })) return;
        // Each admitted request is held open, as an event stream is, until the test lets it end.
        response.writeHead(200, { "content-type": "text/plain" });
        response.write("open");
        held.push(() => response.end());
      },
      { port: 0, host: "127.0.0.1", sockets: 1 },
    );
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    try {
      // Paths outside the API: the contract (tests/support/check-contract.ts) checks every answer under /api.
      const open = await Promise.all([fetch(`${base}/c/a`), fetch(`${base}/c/b`)]);
      expect(open.map((response) => response.status)).toEqual([200, 200]);

      const api = await fetch(`${base}/api/health`);
      expect(api.status).toBe(503);
      expect(api.headers.get("retry-after")).toBe("1");
      // Kept open for the retry: a full instance resets no connection.
      expect(api.headers.get("connection")).toBe("keep-alive");
      expect(api.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await api.json()).toEqual({
        error: { code: "unavailable", message: expect.stringContaining("as many requests as it can (2)") },
      });
      const page = await fetch(`${base}/`, { method: "POST", body: "a body it never reads" });
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/^503 Service Unavailable: This instance is serving as many requests/);

      held.shift()!();
      await open[0].text();
      // The count goes down as the response closes, which the client may hear of first.
      await expect.poll(async () => (await fetch(`${base}/c/c`)).status).toBe(200);
    } finally {
      held.forEach((end) => end());
      // The answers left unread would keep their connections, and close() waiting.
      server.closeAllConnections();
      await close([server]);
    }
  });
});
