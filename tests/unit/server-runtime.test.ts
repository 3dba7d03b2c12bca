import type { Server } from "node:http";
import net from "node:net";
import { describe, expect, it, vi } from "vitest";
import { STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import {
  KEEP_ALIVE_HINT_SECONDS,
  KEEP_ALIVE_MS,
  listen,
  missingServerFlags,
  refuseBeyondCapacity,
  refuseUndecodableUrl,
  serveDirectly,
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

describe("a route served without Next's router", () => {
  /** A server that answers every request with `handler` as server.mjs does a direct route's. */
  async function serving(handler: (request: Request) => Promise<Response>) {
    const [server] = await listen(
      (request, response) => void serveDirectly(handler, request, response, { secure: false }),
      { port: 0, host: "127.0.0.1", sockets: 1 },
    );
    const { port } = server.address() as net.AddressInfo;
    return { server, port, base: `http://127.0.0.1:${port}` };
  }

  it("hands the handler the request Next would, and sends its answer with the headers of every answer", async () => {
    let seen: { url: string; method: string; headers: Headers; body: string } | undefined;
    const { server, port, base } = await serving(async (request) => {
      seen = { url: request.url, method: request.method, headers: request.headers, body: await request.text() };
      const answer = new Response("made", { status: 201, headers: { "content-type": "text/plain", "x-own": "1" } });
      answer.headers.append("set-cookie", "a=1; Path=/");
      answer.headers.append("set-cookie", "b=2; Path=/");
      return answer;
    });
    try {
      const answer = await fetch(`${base}/c/tool/execute?version=2`, {
        method: "POST",
        headers: { cookie: "x=1", "content-type": "application/json", "x-forwarded-proto": "https" },
        body: '{"input":{}}',
      });
      expect(answer.status).toBe(201);
      expect(await answer.text()).toBe("made");
      expect(answer.headers.get("x-own")).toBe("1");
      expect(answer.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
      expect(answer.headers.get("content-length")).toBe("4");
      for (const [name, value] of [
        ["x-content-type-options", "nosniff"],
        ["x-frame-options", "DENY"],
        ["referrer-policy", "same-origin"],
      ])
        expect(answer.headers.get(name)).toBe(value);

      // The protocol a proxy forwarded (server.mjs keeps it only from a trusted one); the rest from the socket.
      expect(seen).toMatchObject({ url: `https://127.0.0.1:${port}/c/tool/execute?version=2`, method: "POST" });
      expect(seen!.body).toBe('{"input":{}}');
      expect(Object.fromEntries(seen!.headers)).toMatchObject({
        cookie: "x=1",
        "content-type": "application/json",
        "x-forwarded-host": `127.0.0.1:${port}`,
        "x-forwarded-port": String(port),
        "x-forwarded-proto": "https",
        "x-forwarded-for": "127.0.0.1",
      });
    } finally {
      await close([server]);
    }
  });

  it("lets a handler stop reading a body and still answer (a body over the limit is told so, not reset)", async () => {
    const { server, base } = await serving(async (request) => {
      const reader = request.body!.getReader();
      await reader.read();
      await reader.cancel();
      return new Response("too large", { status: 413 });
    });
    try {
      const chunks = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 64; i++) controller.enqueue(new Uint8Array(16 * 1024));
          controller.close();
        },
      });
      const init = { method: "POST", body: chunks, duplex: "half" } as RequestInit;
      const answer = await fetch(`${base}/c/upload`, init);
      expect(answer.status).toBe(413);
      expect(await answer.text()).toBe("too large");
    } finally {
      // The body's connection is not idle: close() alone would wait for it.
      server.closeAllConnections();
      await close([server]);
    }
  });

  it("aborts the handler's signal when the client leaves, and not when it reads the answer", async () => {
    const signals: AbortSignal[] = [];
    const { server, base } = await serving(async (request) => {
      signals.push(request.signal);
      if (new URL(request.url).pathname === "/c/quick") return new Response("done");
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
      return new Response("too late");
    });
    try {
      expect(await (await fetch(`${base}/c/quick`, { method: "POST" })).text()).toBe("done");
      const leaving = new AbortController();
      const call = fetch(`${base}/c/slow`, { method: "POST", signal: leaving.signal });
      await expect.poll(() => signals.length).toBe(2);
      leaving.abort();
      await expect(call).rejects.toThrow(/abort/i);
      await expect.poll(() => signals[1].aborted).toBe(true);
      expect(signals[0].aborted).toBe(false);
    } finally {
      server.closeAllConnections();
      await close([server]);
    }
  });

  it("answers 500 when the handler throws or its answer's body fails, and 400 for a Host that is not a host name", async () => {
    let called = 0;
    const { server, port, base } = await serving(async (request) => {
      called++;
      if (new URL(request.url).pathname === "/c/throws") throw new Error("a bug");
      return new Response(new ReadableStream({ pull: (controller) => controller.error(new Error("broken")) }));
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      for (const path of ["/c/throws", "/c/breaks"]) {
        const failed = await fetch(`${base}${path}?key=not-for-the-log`, { method: "POST" });
        expect(failed.status).toBe(500);
        expect(await failed.text()).toMatch(/^500 Internal Server Error: Something went wrong on the server/);
        expect(logged).toHaveBeenCalledWith(`POST ${path} failed:`, expect.any(Error));
      }

      const raw = await new Promise<string>((resolve) => {
        let received = "";
        const socket = net.connect(port, "127.0.0.1", () =>
          socket.write("POST /c/x HTTP/1.1\r\nHost: a b\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        );
        socket.on("data", (chunk) => (received += chunk));
        socket.on("close", () => resolve(received));
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw).toContain('The Host header ("a b") is not a host name.');
      expect(called).toBe(2);
    } finally {
      logged.mockRestore();
      await close([server]);
    }
  });
});
