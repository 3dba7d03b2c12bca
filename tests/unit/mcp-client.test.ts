import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpClientPool, resultForModel, specProblem, type McpCallResult } from "@/lib/mcp-client";
import { MessageTooLarge, messageCap, personalServerRule, serverFetch } from "@/lib/mcp-client/http";
import { base64Bytes, callResult } from "@/lib/mcp-client/result";
import { specKey } from "@/lib/mcp-client/spec";
import { serverEnvironment, StderrLog } from "@/lib/mcp-client/stdio";
import { toolInfos } from "@/lib/mcp-client/tools";
import { HostRefusedError } from "@/lib/sandbox/fetch-guard";
import { mcpClientLimits } from "@/lib/settings/config";

const limits = { maxTools: 3, maxSchemaBytes: 200, maxDescriptionChars: 20 };
const object = { type: "object", properties: {} };

describe("toolInfos", () => {
  it("qualifies names, keeps the spec's annotations only, and cuts long descriptions", () => {
    const { tools, skipped } = toolInfos(
      "files",
      [
        {
          name: "read.file",
          title: "Read",
          description: "Reads a file from the disk, all of it.",
          inputSchema: object,
          annotations: { readOnlyHint: true, destructiveHint: "yes", custom: 1 },
        },
        { name: "write", inputSchema: object, outputSchema: { type: "object" } },
      ],
      limits,
    );
    expect(skipped).toEqual([]);
    expect(tools).toEqual([
      {
        server: "files",
        name: "read.file",
        qualifiedName: "files__read_file",
        title: "Read",
        description: "Reads a file from th… (cut)",
        inputSchema: object,
        annotations: { readOnlyHint: true },
      },
      {
        server: "files",
        name: "write",
        qualifiedName: "files__write",
        description: "",
        inputSchema: object,
        outputSchema: { type: "object" },
      },
    ]);
  });

  it("leaves out what a model could not be offered, and says why", () => {
    const { tools, skipped } = toolInfos(
      "s",
      [
        { name: "a_b", inputSchema: object },
        { name: "a.b", inputSchema: object },
        { name: "x".repeat(70), inputSchema: object },
        { name: "array", inputSchema: { type: "array" } },
        { name: "none" },
        { name: "big", inputSchema: { type: "object", description: "d".repeat(300) } },
        { name: "bad_output", inputSchema: object, outputSchema: [] },
        { name: "ok1", inputSchema: object },
        { name: "ok2", inputSchema: object },
        { name: "ok3", inputSchema: object },
      ],
      limits,
    );
    expect(tools.map((tool) => tool.name)).toEqual(["a_b", "ok1", "ok2"]);
    expect(skipped).toEqual([
      { name: "a.b", reason: "another tool of the server is also s__a_b" },
      { name: "x".repeat(70), reason: "its name, with the server's, is not 1 to 64 letters, digits, _ and -" },
      { name: "array", reason: 'its input schema is not of type "object"' },
      { name: "none", reason: "its input schema is not a JSON object" },
      { name: "big", reason: expect.stringMatching(/^its input schema is 3\d\d bytes, over the 200 byte limit$/) },
      { name: "bad_output", reason: "its output schema is not a JSON object" },
      { name: "ok3", reason: "over the 3 tools kept of one server" },
    ]);
  });
});

describe("callResult and resultForModel", () => {
  const png = Buffer.alloc(1234, 1).toString("base64");

  it("keeps each kind of content as such, and an embedded blob as its size", () => {
    const result = callResult({
      content: [
        { type: "text", text: "Here:" },
        { type: "image", mimeType: "image/png", data: png },
        { type: "audio", mimeType: "audio/wav", data: "AAAA" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "alpha" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: Buffer.alloc(2048).toString("base64") } },
        { type: "resource_link", uri: "file:///c", name: "c", description: "The third." },
        { type: "hologram", data: "?" },
      ],
      isError: false,
    });
    expect(result.content).toEqual([
      { type: "text", text: "Here:" },
      { type: "image", mimeType: "image/png", data: png },
      { type: "audio", mimeType: "audio/wav", data: "AAAA" },
      { type: "resource", uri: "file:///a.txt", mimeType: "text/plain", text: "alpha" },
      { type: "resource", uri: "file:///b.bin", blobBytes: 2048 },
      { type: "resource_link", uri: "file:///c", name: "c", description: "The third." },
      { type: "text", text: "[content of type hologram]" },
    ]);
    const read = resultForModel(result);
    expect(read.text).toBe(
      [
        "Here:",
        "[image image/png, 1.2 KB]",
        "[audio audio/wav, 3 B]",
        "[resource file:///a.txt (text/plain)]\nalpha",
        "[resource file:///b.bin, 2 KB]",
        "[link c: file:///c] The third.",
        "[content of type hologram]",
      ].join("\n"),
    );
    expect(read.media).toEqual([
      { type: "image", mimeType: "image/png", data: png },
      { type: "audio", mimeType: "audio/wav", data: "AAAA" },
    ]);
    expect(read.isError).toBe(false);
  });

  it("says structured content once: as JSON when no text block repeats it", () => {
    const repeated: McpCallResult = {
      ok: true,
      content: [{ type: "text", text: '{ "t": 1 }' }],
      structuredContent: { t: 1 },
      isError: false,
    };
    expect(resultForModel(repeated).text).toBe('{ "t": 1 }');
    expect(resultForModel({ ...repeated, content: [] }).text).toBe('{"t":1}');
  });

  it("reads a failure and an empty result as sentences", () => {
    expect(resultForModel({ ok: false, error: 'MCP server "x" is down.' })).toEqual({
      text: 'MCP server "x" is down.',
      isError: true,
      media: [],
    });
    expect(resultForModel({ ok: true, content: [], isError: true }).text).toBe("The tool failed without saying why.");
    expect(resultForModel({ ok: true, content: [], isError: false }).text).toBe("(no content)");
  });

  it("counts base64 bytes without decoding", () => {
    for (const size of [0, 1, 2, 3, 4, 100, 1001])
      expect(base64Bytes(Buffer.alloc(size).toString("base64"))).toBe(size);
  });
});

describe("specs", () => {
  it("refuses bad names, a person's command and a URL that is not http(s)", () => {
    expect(specProblem({ name: "Bad Name", trusted: true, url: "https://x" })).toMatch(/^An MCP server's name/);
    expect(specProblem({ name: "x", trusted: false, command: "node" })).toMatch(/only the operator's profiles file/);
    expect(specProblem({ name: "x", trusted: false, url: "file:///etc/passwd" })).toMatch(/needs an http\(s\) URL/);
    expect(specProblem({ name: "ok_1", trusted: false, url: "https://mcp.example.com/mcp" })).toBeUndefined();
  });

  it("keys a spec by its whole content, whatever the order of its keys", () => {
    const spec = { name: "a", trusted: false, url: "https://x/mcp", headers: { a: "1", b: "2" } };
    expect(specKey(spec)).toBe(
      specKey({ headers: { b: "2", a: "1" }, url: "https://x/mcp", trusted: false, name: "a" }),
    );
    expect(specKey(spec)).not.toBe(specKey({ ...spec, headers: { a: "1", b: "3" } }));
    expect(specKey(spec)).not.toBe(specKey({ ...spec, trusted: true }));
    expect(specKey(spec)).not.toContain("https");
  });

  it("reads the private hosts and limits from the environment", () => {
    expect(mcpClientLimits({ TOOLSMITH_MCP_PRIVATE_HOSTS: "127.0.0.1, MCP.corp.example ,10.0.0.0/8" })).toMatchObject({
      privateHosts: ["127.0.0.1", "mcp.corp.example", "10.0.0.0/8"],
      connectTimeoutMs: 10_000,
      maxMessageBytes: 4 * 1024 * 1024,
      maxTools: 1000,
    });
  });
});

describe("a stdio server's environment and stderr", () => {
  it("is exactly the entry's env and PATH, and blanks the SDK's defaults", () => {
    const env = serverEnvironment({ command: "x", env: { API_KEY: "theirs" } });
    const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
    expect(given).toEqual({ API_KEY: "theirs", PATH: process.env.PATH });
    expect(Object.keys(env)).toEqual(expect.arrayContaining(["HOME", "USER", "SHELL"]));
    expect(serverEnvironment({ command: "x", env: { PATH: "/opt/bin" } }).PATH).toBe("/opt/bin");
  });

  it("logs stderr up to its cap and keeps the last line", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const log = new StderrLog('MCP server "x"', 50);
      for (let index = 0; index < 100; index++) log.write(Buffer.from(`line ${index}\n`));
      const logged = warn.mock.calls.map(([line]) => String(line));
      expect(logged.slice(0, 2)).toEqual(['MCP server "x": line 0', 'MCP server "x": line 1']);
      expect(logged.at(-1)).toBe('MCP server "x": stderr past 50 bytes is not logged (this connection).');
      expect(logged.length).toBeLessThan(12);
      expect(log.lastLine()).toBe("line 99");
    } finally {
      warn.mockRestore();
    }
  });
});

describe("where a person's server may be", () => {
  const rule = personalServerRule(["127.0.0.1", "mcp.corp.example", "10.20.0.0/16", "fd00::/8"]);

  it.each([
    ["8.8.8.8", "dns.example"],
    ["127.0.0.1", "127.0.0.1"],
    ["10.20.3.4", "anything.example"],
    ["10.0.0.1", "mcp.corp.example"],
    ["fd00::1", "v6.example"],
    ["::ffff:127.0.0.1", "mapped.example"],
  ])("allows %s for %s", (address, host) => expect(rule.isAllowed(address, host)).toBe(true));

  it.each([
    ["127.0.0.2", "127.0.0.2"],
    ["10.21.0.1", "intranet.example"],
    ["169.254.169.254", "metadata.example"],
    ["192.168.1.1", "router.example"],
    ["::1", "v6-loopback.example"],
  ])("refuses %s for %s", (address, host) => expect(rule.isAllowed(address, host)).toBe(false));

  it("exempts the listed names from the guard's list of local names", () => {
    expect(personalServerRule(["localhost"]).exempt("localhost")).toBe(true);
    expect(rule.exempt("localhost")).toBe(false);
  });
});

describe("the fetch of a person's server", () => {
  let server: http.Server;
  let port = 0;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      requests++;
      if (request.url === "/big") return response.end("x".repeat(3 * 1024));
      if (request.url === "/events") {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (let index = 0; index < 20; index++) response.write(`data: ${"e".repeat(200)}\n\n`);
        return response.end(`data: ${"E".repeat(2000)}\n\n`);
      }
      response.end(JSON.stringify({ headers: request.headers }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  // The resolver stands in for DNS: public.test is the local server (listed as allowed), the others private.
  const resolve = async (host: string) =>
    host === "public.test" ? ["127.0.0.1"] : host === "rebind.test" ? ["8.8.8.8", "10.0.0.1"] : ["169.254.169.254"];
  const strict = () => serverFetch(personalServerRule(["public.test"]), 1024, () => undefined, resolve);

  it("reaches an allowed host through the checked address, with the caller's headers", async () => {
    const { fetch, close } = strict();
    try {
      const response = await fetch(`http://public.test:${port}/`, { headers: { authorization: "Bearer t" } });
      expect(((await response.json()) as { headers: Record<string, string> }).headers.authorization).toBe("Bearer t");
    } finally {
      close();
    }
  });

  it.each([
    [
      "a name resolving to the metadata address",
      "http://metadata.example/mcp",
      /169\.254\.169\.254, which is not a public address/,
    ],
    [
      "a name resolving to a public and a private address",
      "http://rebind.test/mcp",
      /10\.0\.0\.1, which is not a public address/,
    ],
    ["the metadata address itself", "http://169.254.169.254/mcp", /169\.254\.169\.254 is not a public address/],
    ["loopback", "http://127.0.0.1:1/mcp", /127\.0\.0\.1 is not a public address/],
    ["localhost", "http://localhost/mcp", /Host localhost is not allowed/],
    ["a .internal name", "http://metadata.google.internal/", /not allowed/],
    ["credentials in the URL", "http://user:pw@public.test/mcp", /credentials/],
  ])("refuses %s before dialling", async (_, url, message) => {
    const before = requests;
    const { fetch, close } = strict();
    try {
      await expect(fetch(url)).rejects.toThrow(message);
    } finally {
      close();
    }
    expect(requests).toBe(before);
  });

  it("checks every connection's own lookup, so a name that rebinds to a private address is refused", async () => {
    let lookups = 0;
    // Allowed, then private, then allowed again: as a rebinding DNS server answers.
    const rebinding = async () => (++lookups % 2 === 0 ? ["10.0.0.1"] : ["127.0.0.1"]);
    const { fetch, close } = serverFetch(personalServerRule(["127.0.0.1"]), 1024, () => undefined, rebinding);
    const before = requests;
    try {
      // `connection: close`: each request its own connection, so each is looked up again.
      const get = () => fetch(`http://rebind.example:${port}/`, { headers: { connection: "close" } });
      expect((await get()).status).toBe(200);
      await expect(get()).rejects.toThrow(/10\.0\.0\.1, which is not a public address/);
      expect((await get()).status).toBe(200);
    } finally {
      close();
    }
    expect(lookups).toBe(3);
    expect(requests - before).toBe(2);
  });

  it("refuses at the lookup, with a HostRefusedError, so the pool says where the operator may allow it", async () => {
    const { fetch, close } = strict();
    try {
      const failure = await fetch("http://metadata.example/").catch((error: Error) => error);
      let cause: unknown = failure;
      while (cause && !(cause instanceof HostRefusedError)) cause = (cause as Error).cause;
      expect(cause).toBeInstanceOf(HostRefusedError);
    } finally {
      close();
    }
  });

  it("cuts a body over the limit on the wire, and an event over the limit in a stream", async () => {
    const tooLarge: MessageTooLarge[] = [];
    const { fetch, close } = serverFetch(
      personalServerRule(["public.test"]),
      1024,
      (error) => tooLarge.push(error),
      resolve,
    );
    try {
      await expect((await fetch(`http://public.test:${port}/big`)).text()).rejects.toThrow(
        "sent a message over the 1 KB limit",
      );
      // Twenty small events pass (4 KB in all); the one of 2 KB does not.
      const events = await (await fetch(`http://public.test:${port}/events`)).body!.getReader();
      let received = "";
      const failure = await (async () => {
        for (;;) {
          const { done, value } = await events.read();
          if (done) return undefined;
          received += Buffer.from(value).toString();
        }
      })().catch((error: Error) => error);
      expect(failure).toBeInstanceOf(MessageTooLarge);
      expect(received.split("\n\n").filter((event) => event.startsWith("data: e"))).toHaveLength(20);
      expect(tooLarge).toHaveLength(2);
    } finally {
      close();
    }
  });

  it("counts event boundaries split across chunks and written with CRLF", async () => {
    const run = async (chunks: string[]) => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(Buffer.from(chunk));
          controller.close();
        },
      }).pipeThrough(messageCap(12, true, () => undefined));
      let text = "";
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
      return text;
    };
    expect(await run(["data: 1\n", "\ndata: 2\r\n\r\n", "data: 3\n\n"])).toBe("data: 1\n\ndata: 2\r\n\r\ndata: 3\n\n");
    await expect(run(["data: 12345678901\n\n"])).rejects.toThrow(MessageTooLarge);
  });
});

describe("the pool's own refusals", () => {
  it("never throws from call, and throws a typed error from tools", async () => {
    const pool = new McpClientPool({ limits: mcpClientLimits({}) });
    const spec = { name: "no good", trusted: true, url: "https://x" };
    expect(await pool.call(spec, "t", {}, { timeoutMs: 100 })).toEqual({
      ok: false,
      error: expect.stringMatching(/^An MCP server's name must be/),
    });
    await expect(pool.tools(spec)).rejects.toMatchObject({ name: "McpClientError", server: "no good" });
    expect(pool.status(spec)).toMatchObject({ state: "failed" });
    expect(pool.status({ name: "fresh", trusted: true, url: "https://x" })).toEqual({ state: "idle" });
  });
});
