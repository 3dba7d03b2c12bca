import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedFetch, isPublicAddress } from "@/lib/sandbox/fetch-guard";

const limits = {
  timeoutMs: 1000,
  maxResponseBytes: 64 * 1024,
  maxRedirects: 3,
  maxRequestBytes: 1024,
  maxRequestsPerCall: 5,
};

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.8.9.10",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "192.0.0.1",
    "198.18.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "2001:db8::1",
    "2001::1",
    "::7f00:1",
    "::a00:1",
    "not-an-ip",
  ])("refuses %s", (address) => expect(isPublicAddress(address)).toBe(false));

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );
});

describe("guardedFetch", () => {
  let server: http.Server;
  let port = 0;
  const stalled: http.IncomingMessage[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const target = new URL(req.url!, "http://x");
      if (target.pathname === "/redirect")
        return res.writeHead(302, { location: target.searchParams.get("to")! }).end();
      if (target.pathname === "/big") return res.end("z".repeat(200 * 1024));
      if (target.pathname === "/stall") {
        stalled.push(req);
        return;
      }
      res.setHeader("x-test", "yes");
      res.end(`hello ${req.method}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  // "public.test" stands for a public host: the resolver sends it to the local test server, and only it is allowed.
  const publicHost = {
    limits,
    resolve: async (host: string) => (host === "public.test" || host === "rebind.test" ? ["127.0.0.1"] : ["10.0.0.1"]),
    isAllowed: (address: string, host: string) => host === "public.test" || isPublicAddress(address),
  };
  const at = (path: string) => `http://public.test:${port}${path}`;

  it("fetches from an allowed host, with status, headers and body", async () => {
    expect(await guardedFetch({ url: at("/hello") }, publicHost)).toMatchObject({
      status: 200,
      body: "hello GET",
      headers: { "x-test": "yes" },
      truncated: false,
    });
    expect(await guardedFetch({ url: at("/hello"), method: "post", body: "{}" }, publicHost)).toMatchObject({
      body: "hello POST",
    });
  });

  it.each([
    ["loopback", () => `http://127.0.0.1:${port}/`],
    ["loopback, other form", () => `http://127.1:${port}/`],
    ["loopback as an integer", () => `http://2130706433:${port}/`],
    ["loopback in hex", () => `http://0x7f000001:${port}/`],
    ["loopback in octal", () => `http://0177.0.0.1:${port}/`],
    ["IPv6 loopback", () => `http://[::1]:${port}/`],
    ["IPv4-mapped IPv6 loopback", () => `http://[::ffff:127.0.0.1]:${port}/`],
    ["NAT64 loopback", () => `http://[64:ff9b::7f00:1]:${port}/`],
    ["unspecified", () => `http://0.0.0.0:${port}/`],
    ["private 10/8", () => "http://10.1.2.3/"],
    ["private 192.168/16", () => "http://192.168.0.1/"],
    ["link-local metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["IPv6 link-local", () => "http://[fe80::1]/"],
    ["IPv6 unique local", () => "http://[fd00::1]/"],
    ["localhost", () => `http://localhost:${port}/`],
    ["a subdomain of localhost", () => `http://app.localhost:${port}/`],
    ["GCP metadata host", () => "http://metadata.google.internal/computeMetadata/v1/"],
    ["a name that resolves to a private address", () => "http://intranet.example/"],
    ["a name that rebinds to loopback", () => `http://rebind.test:${port}/`],
    ["file:", () => "file:///etc/passwd"],
    ["ftp:", () => "ftp://example.com/"],
    ["data:", () => "data:text/plain,hi"],
    ["credentials in the URL", () => `http://user:pass@public.test:${port}/`],
    ["not a URL", () => "::::"],
    ["loopback with a trailing dot", () => `http://127.0.0.1.:${port}/`],
    ["localhost with a trailing dot", () => `http://localhost.:${port}/`],
    ["LOCALHOST in capitals", () => `http://LOCALHOST:${port}/`],
    ["loopback, zero-padded", () => `http://127.000.000.001:${port}/`],
    ["loopback, hex parts", () => `http://0x7f.0x0.0x0.0x1:${port}/`],
    ["loopback, short octal", () => `http://0177.1:${port}/`],
    ["another loopback address", () => `http://127.8.9.10:${port}/`],
    ["zero as a host", () => `http://0:${port}/`],
    ["IPv6 loopback, long form", () => `http://[0:0:0:0:0:0:0:1]:${port}/`],
    ["IPv4-mapped loopback in hex", () => `http://[::ffff:7f00:1]:${port}/`],
    ["IPv4-compatible loopback", () => `http://[::127.0.0.1]:${port}/`],
    ["6to4 loopback", () => "http://[2002:7f00:1::]/"],
    ["IPv4-mapped metadata", () => "http://[::ffff:169.254.169.254]/"],
    ["metadata as an integer", () => "http://2852039166/"],
    ["private 172.16/12", () => "http://172.16.0.1/"],
    ["carrier-grade NAT", () => "http://100.64.0.1/"],
    ["multicast", () => "http://224.0.0.1/"],
    ["broadcast", () => "http://255.255.255.255/"],
    ["IPv6 multicast", () => "http://[ff02::1]/"],
    ["IPv6 unspecified", () => "http://[::]/"],
    ["benchmarking range", () => "http://198.18.0.1/"],
    ["userinfo hiding a private host", () => "http://public.test@10.0.0.1/"],
    ["userinfo before loopback", () => `http://user@127.0.0.1:${port}/`],
    [".internal", () => "http://db.internal/"],
    [".local", () => "http://printer.local/"],
    [".home.arpa", () => "http://nas.home.arpa/"],
    ["the Kubernetes API", () => "http://kubernetes.default/"],
    ["gopher:", () => "gopher://127.0.0.1/"],
    ["javascript:", () => "javascript:alert(1)"],
    ["ws:", () => `ws://127.0.0.1:${port}/`],
  ])("refuses %s", async (_name, url) => {
    await expect(guardedFetch({ url: url() }, publicHost)).rejects.toThrow(
      /not allowed|not a public address|Only http|Invalid URL|credentials/,
    );
  });

  it.each([
    ["loopback", () => `http://127.0.0.1:${port}/hello`],
    ["localhost", () => `http://localhost:${port}/hello`],
    ["metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["IPv6 loopback", () => `http://[::1]:${port}/hello`],
    ["a private name", () => "http://intranet.example/"],
  ])("refuses a redirect to %s", async (_name, target) => {
    const url = at(`/redirect?to=${encodeURIComponent(target())}`);
    await expect(guardedFetch({ url }, publicHost)).rejects.toThrow(/not allowed|not a public address/);
  });

  it("follows redirects between allowed hosts, up to the limit", async () => {
    expect(
      await guardedFetch({ url: at(`/redirect?to=${encodeURIComponent(at("/hello"))}`) }, publicHost),
    ).toMatchObject({ body: "hello GET", url: at("/hello") });
    let url = at("/hello");
    for (let i = 0; i < 4; i++) url = at(`/redirect?to=${encodeURIComponent(url)}`);
    await expect(guardedFetch({ url }, publicHost)).rejects.toThrow(/redirects/);
  });

  it("caps the response size", async () => {
    const reply = await guardedFetch({ url: at("/big") }, publicHost);
    expect(reply).toMatchObject({ truncated: true });
    expect(reply.body.length).toBe(64 * 1024);
  });

  it("times out", async () => {
    const started = performance.now();
    await expect(guardedFetch({ url: at("/stall") }, publicHost)).rejects.toThrow(/timed out/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("stops at once when its caller aborts, closing the connection", async () => {
    const controller = new AbortController();
    const pending = guardedFetch({ url: at("/stall") }, { ...publicHost, signal: controller.signal });
    await expect.poll(() => stalled.length).toBe(2);
    const closed = new Promise((resolve) => stalled[1].socket.once("close", resolve));
    const started = performance.now();
    controller.abort();
    await expect(pending).rejects.toThrow(/cancelled/);
    await closed;
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("refuses unknown methods and oversized bodies", async () => {
    await expect(guardedFetch({ url: at("/hello"), method: "CONNECT" }, publicHost)).rejects.toThrow(/Method/);
    await expect(
      guardedFetch({ url: at("/hello"), method: "POST", body: "x".repeat(2048) }, publicHost),
    ).rejects.toThrow(/byte limit/);
  });

  it("refuses loopback with the default address check", async () => {
    await expect(guardedFetch({ url: `http://127.0.0.1:${port}/hello` }, { limits })).rejects.toThrow(
      /not a public address/,
    );
  });
});
