import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationFile } from "@/lib/contract/responses";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { listed, upload, uploaded } from "../support/files";
import { scriptedApp, type AppServer } from "../support/app-server";
import { checkAnswer } from "../support/contract";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

/*
 * The files' routes as an attacker meets them, through the real server with small limits: hostile names, disguised
 * types, archives, uploads past every limit, broken and cut-off bodies, and other people's files, links and sites.
 */

const MB = 1024 * 1024;
const LIMITS = {
  TOOLSMITH_FILE_MAX_MB: "1",
  TOOLSMITH_CONVERSATION_FILES_MAX_MB: "2",
  TOOLSMITH_IDENTITY_FILES_MAX_MB: "3",
  TOOLSMITH_MESSAGE_MAX_FILES: "3",
  TOOLSMITH_RATE_UPLOADS_PER_MINUTE: "100000",
};

const model = new ModelServer();
let app: AppServer;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, LIMITS);
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const PDF = [
  "%PDF-1.4",
  "1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj",
  "2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj",
  "3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 10 10]>> endobj",
  "trailer <</Root 1 0 R>>",
  "%%EOF",
  "",
].join("\n");

const names = async (client: Api, conversationId: string) =>
  (await listed(client, conversationId)).map((file) => file.name);

/** The error sentence of a refusal, once its status is the one expected. */
const refusal = async (response: Response, status: number) =>
  ((await expectJson(response, status)) as { error: { message: string } }).error.message;

// A multipart body written by hand: the names, headers and endings a browser's FormData would never send.
const BOUNDARY = "----hostile-boundary-7d3f";

interface RawPart {
  disposition: string;
  type?: string;
  body: string | Buffer;
}

/** A part named `file` whose filename is sent as is, between quotes (escape `"` yourself, as `\"`). */
const quoted = (filename: string, body: string | Buffer = "x", type = "application/octet-stream"): RawPart => ({
  disposition: `form-data; name="file"; filename="${filename}"`,
  type,
  body,
});

/** RFC 8187's percent-encoding: encodeURIComponent leaves ' ( ) * ! as they are, which an ext-value may not hold. */
const extValue = (text: string) =>
  encodeURIComponent(text).replace(/['()*!]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/** A part named `file` whose filename is RFC 5987's `filename*`: any character, NUL, CR and LF included. */
const extended = (filename: string, body: string | Buffer = "x"): RawPart => ({
  disposition: `form-data; name="file"; filename*=UTF-8''${extValue(filename)}`,
  type: "application/octet-stream",
  body,
});

function multipart(parts: RawPart[], { boundary = BOUNDARY, closed = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const type = part.type ? `Content-Type: ${part.type}\r\n` : "";
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${part.disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.from(part.body), Buffer.from("\r\n"));
  }
  if (closed) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

const sendMultipart = (client: Api, conversationId: string, body: Buffer, boundary = BOUNDARY) =>
  client.fetch(`/api/conversations/${conversationId}/files`, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    body: new Uint8Array(body),
  });

/** The one file a hand-written single part is stored as. */
async function storedAs(client: Api, conversationId: string, part: RawPart): Promise<ConversationFile> {
  const { files } = (await expectJson(await sendMultipart(client, conversationId, multipart([part])), 201)) as {
    files: ConversationFile[];
  };
  expect(files).toHaveLength(1);
  return files[0];
}

interface RawAnswer {
  status: number;
  rawHeaders: string[];
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A request through node:http, for what fetch would not send (no Content-Type at all) or would hide (the response's
 * header lines as sent); its answer is checked against the contract as fetch's are.
 */
async function rawRequest(
  url: string,
  {
    method = "GET",
    headers = {},
    body,
    agent,
  }: { method?: string; headers?: Record<string, string>; body?: Buffer; agent?: http.Agent } = {},
): Promise<RawAnswer> {
  const answer = await new Promise<RawAnswer>((resolve, reject) => {
    const request = http.request(url, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({
          status: response.statusCode!,
          rawHeaders: response.rawHeaders,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
  const responseHeaders = new Headers();
  for (let i = 0; i < answer.rawHeaders.length; i += 2)
    responseHeaders.append(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
  const empty = [204, 304].includes(answer.status);
  await checkAnswer(
    method,
    url,
    new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: responseHeaders }),
  );
  return answer;
}

/**
 * Uploads of `client`'s on a connection pool of their own (node:http's, keep-alive), which `run` may leave broken
 * (a refused upload's connection can be reset, a defect the limits' tests report) without breaking the next test's.
 */
async function onOwnConnections<T>(run: (send: typeof rawRequest) => Promise<T>): Promise<T> {
  const agent = new http.Agent({ keepAlive: true });
  try {
    return await run((url, options = {}) => rawRequest(url, { ...options, agent }));
  } finally {
    agent.destroy();
  }
}

/** What a request came to: its status and error message, or the connection's failure. */
const outcomeOf = (sent: Promise<RawAnswer>) =>
  sent.then(
    ({ status, body }) => `${status}${status >= 400 ? ` ${JSON.parse(body.toString()).error.message}` : ""}`,
    (error: NodeJS.ErrnoException) => `failed: ${error.code ?? error.message}`,
  );

/** A fetch answer in rawRequest's shape, for outcomeOf. */
const asRaw = async (response: Response): Promise<RawAnswer> => ({
  status: response.status,
  rawHeaders: [],
  headers: {},
  body: Buffer.from(await response.arrayBuffer()),
});

/** Content-Disposition as a client reads it: its type and its parameters, quoted strings unescaped. */
function disposition(header: string): { type: string; params: Record<string, string> } {
  const [type] = header.split(";", 1);
  const params: Record<string, string> = {};
  const rest = header.slice(type.length);
  const pattern = /^\s*;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/;
  let remaining = rest;
  while (remaining.trim() !== "") {
    const match = pattern.exec(remaining);
    if (!match) throw new Error(`Content-Disposition does not parse past: ${remaining}`);
    const value = match[2].startsWith('"') ? match[2].slice(1, -1).replace(/\\(.)/g, "$1") : match[2].trim();
    if (match[1] in params) throw new Error(`Content-Disposition repeats ${match[1]}: ${header}`);
    params[match[1].toLowerCase()] = value;
    remaining = remaining.slice(match[0].length);
  }
  return { type: type.trim(), params };
}

// RFC 8187 (5987) attr-char, and %XX: everything else in an ext-value's value must be percent-encoded.
const EXT_VALUE = /^UTF-8''(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})*$/;

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A valid ZIP of one stored (uncompressed) entry. */
function zipOf(entryName: string, content: string): Buffer {
  const data = Buffer.from(content);
  const name = Buffer.from(entryName);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(local.length + name.length + data.length, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

const waitFor = async (check: () => Promise<boolean>, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
};

const healthy = async () => expect((await fetch(`${app.url}/api/health`)).status).toBe(200);

describe("names", () => {
  it("keeps only the last segment of a path, whatever its separators, and never leaves the conversation's root", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const cases: [RawPart, string][] = [
      [quoted("../../x.txt"), "x.txt"],
      [quoted("..\\\\..\\\\y.txt"), "y.txt"],
      [quoted("/etc/passwd"), "passwd"],
      [quoted("C:\\\\x"), "x"],
      [extended("../../etc/shadow"), "shadow"],
      [extended("..\\..\\Windows\\win.ini"), "win.ini"],
      [extended("/absolute/z.csv"), "z.csv"],
    ];
    for (const [part, expected] of cases) {
      const file = await storedAs(api, id, part);
      expect(file.name, part.disposition).toBe(expected);
      expect(file.path).toBe(`/${expected}`);
    }
    // The same through a browser's FormData.
    const [dotted] = await uploaded(api, id, [["../../../../tmp/evil.sh", "echo pwned"]]);
    expect(dotted).toMatchObject({ name: "evil.sh", path: "/evil.sh" });
    for (const file of await listed(api, id)) {
      expect(file.name).not.toMatch(/[/\\]/);
      expect(file.path).toBe(`/${file.name}`);
    }
  });

  it("removes NUL, CR, LF and other controls, and a download's headers stay what they were: no header injected", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const nul = await storedAs(api, id, extended("a\0b.txt"));
    expect(nul.name).toBe("ab.txt");
    const crlf = await storedAs(api, id, extended("report\r\nX-Injected: yes\r\nSet-Cookie: a=b\r\n\r\n.txt", "hi"));
    expect(crlf.name).not.toMatch(/[\r\n\0]/);
    expect(crlf.name).toBe("reportX-Injected: yesSet-Cookie: a=b.txt");
    const tabs = await storedAs(api, id, extended("tab\there\u0007\u001b[31m\u007f\u0085.txt"));
    expect(tabs.name).toBe("tabhere[31m.txt");

    const served = await rawRequest(`${app.url}${crlf.url}`, { headers: { cookie: api.cookie! } });
    expect(served.status).toBe(200);
    const headerNames = served.rawHeaders.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase());
    expect(headerNames.filter((name) => name === "content-disposition")).toHaveLength(1);
    expect(headerNames).not.toContain("x-injected");
    expect(headerNames).not.toContain("set-cookie");
    const { type, params } = disposition(served.headers["content-disposition"]!);
    expect(type).toBe("inline");
    expect(Object.keys(params).sort()).toEqual(["filename", "filename*"]);
    expect(params.filename).toBe("reportX-Injected: yesSet-Cookie: a=b.txt");
    expect(params["filename*"]).toMatch(EXT_VALUE);
    expect(served.body.toString()).toBe("hi");
  });

  it("keeps quotes and semicolons inside the download's filename: no parameter or header can be added", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const hostile = 'x"; filename="evil.html"; filename*=UTF-8\'\'evil.html; x=".txt';
    const file = await storedAs(api, id, extended(hostile));
    expect(file.name).toBe(hostile);
    // Sent as a quoted string with a backslash escape, as the multipart grammar allows.
    const escaped = await storedAs(api, id, quoted('q\\"uote.txt'));
    expect(escaped.name).toBe('q"uote.txt');

    for (const stored of [file, escaped]) {
      const served = await api.fetch(stored.url);
      expect(served.status).toBe(200);
      const { params } = disposition(served.headers.get("content-disposition")!);
      expect(Object.keys(params).sort()).toEqual(["filename", "filename*"]);
      expect(params.filename).not.toContain('"');
      expect(decodeURIComponent(params["filename*"].replace(/^UTF-8''/, ""))).toBe(stored.name);
    }
  });

  it("percent-encodes every character RFC 8187 leaves out of filename*, ' ( ) * included", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [file] = await uploaded(api, id, [["it's (final)*!.txt", "draft"]]);
    expect(file.name).toBe("it's (final)*!.txt");
    const { params } = disposition((await api.fetch(file.url)).headers.get("content-disposition")!);
    expect(params["filename*"]).toMatch(EXT_VALUE);
    expect(decodeURIComponent(params["filename*"].replace(/^UTF-8''/, ""))).toBe(file.name);
  });

  it("removes bidirectional overrides and zero-width characters, so a name looks like what it is", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [rtl, zeroWidth] = await uploaded(api, id, [
      ["invoice\u202Efdp.exe", "MZ"],
      ["pay\u200Bpal\u200D\u2060.txt", "x"],
    ]);
    const [bom, invisible] = await uploaded(api, id, [
      ["\uFEFFnotes\u2066.md\u2069", "x"],
      ["\u200B\u200C\u200D\u202E", "x"],
    ]);
    expect(rtl.name).toBe("invoicefdp.exe");
    expect(zeroWidth.name).toBe("paypal.txt");
    expect(bom.name).toBe("notes.md");
    expect(invisible.name).toBe("file");
    for (const file of [rtl, zeroWidth, bom, invisible])
      expect(file.name).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/u);
  });

  it("cuts a 10,000-character name to fit file systems, keeping its extension", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [ascii, wide] = await uploaded(api, id, [
      [`${"a".repeat(10_000)}.txt`, "x"],
      // Its part's header stays under the 16 KB a multipart parser takes.
      [`${"é".repeat(5_000)}.csv`, "x"],
    ]);
    const [noExtension] = await uploaded(api, id, [["b".repeat(10_000), "x"]]);
    expect(ascii.name).toBe(`${"a".repeat(196)}.txt`);
    expect(wide.name).toMatch(/^é+\.csv$/);
    expect(Buffer.byteLength(wide.name)).toBeLessThanOrEqual(255);
    expect(noExtension.name).toBe("b".repeat(200));
    // The download's header carries it whole, without breaking.
    const served = await api.fetch(ascii.url);
    expect(served.status).toBe(200);
    expect(disposition(served.headers.get("content-disposition")!).params.filename).toBe(ascii.name);
  });

  it("stores an empty name, one of dots only and one of spaces as `file`, numbered on a clash", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [empty] = await uploaded(api, id, [["", "x"]]);
    expect(empty.name).toBe("file");
    expect((await storedAs(api, id, quoted("..."))).name).toBe("file-2");
    expect((await storedAs(api, id, quoted(".."))).name).toBe("file-3");
    expect((await storedAs(api, id, quoted("."))).name).toBe("file-4");
    expect((await storedAs(api, id, quoted("   "))).name).toBe("file-5");
    expect((await storedAs(api, id, extended(" .. . "))).name).toBe("file-6");
    expect((await storedAs(api, id, quoted("a/.."))).name).toBe("file-7");
    expect(await names(api, id)).toEqual(["file", "file-2", "file-3", "file-4", "file-5", "file-6", "file-7"]);
  });

  it("gives a clash a suffix before the extension, ignoring case and Unicode normalisation, within one upload too", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const batches: [string, string][][] = [
      [
        ["sales.csv", "a"],
        ["sales.csv", "b"],
      ],
      [
        ["SALES.CSV", "c"],
        ["Sales.Csv", "d"],
      ],
      [
        ["sales-2.csv", "e"],
        ["data.tar.gz", "f"],
      ],
      [
        ["DATA.TAR.GZ", "g"],
        ["caf\u00e9.txt", "h"],
      ],
      [
        ["cafe\u0301.txt", "i"],
        ["CAF\u00c9.TXT", "j"],
      ],
      [["sal\u200Bes.csv", "k"]],
    ];
    for (const batch of batches) await uploaded(api, id, batch);
    expect(await names(api, id)).toEqual([
      "sales.csv",
      "sales-2.csv",
      "SALES-3.CSV",
      "Sales-4.Csv",
      "sales-2-2.csv",
      "data.tar.gz",
      "DATA-2.TAR.GZ",
      "café.txt",
      "café-2.txt",
      "CAFÉ-3.TXT",
      "sales-5.csv",
    ]);
    const keys = (await names(api, id)).map((name) => name.normalize("NFC").toLowerCase());
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("types", () => {
  it("sniffs markup and scripts disguised as images, and serves them only as sandboxed attachments", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const cases: [string, string, string, string][] = [
      ["cat.png", "<!doctype html><script>alert(document.cookie)</script>", "image/png", "text/html"],
      ["upper.png", "  <!-- hi -->\n<HTML><BODY onload=alert(1)>", "image/png", "text/html"],
      ["bom.gif", "\uFEFF<script>alert(1)</script>", "", "text/html"],
      [
        "logo.png",
        '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.domain)</script></svg>',
        "image/png",
        "image/svg+xml",
      ],
      [
        "prolog.jpg",
        '<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
        "image/jpeg",
        "image/svg+xml",
      ],
      [
        "feed.png",
        '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<x>&e;</x>',
        "image/png",
        "application/xml",
      ],
      ["app.js", "fetch('/api/tokens', { method: 'POST' });", "image/png", "text/javascript"],
      ["page.html", "just words", "image/png", "text/html"],
    ];
    for (const [name, content, claimed, sniffed] of cases) {
      const [file] = await uploaded(api, id, [[name, content, claimed]]);
      expect(file.mimeType, name).toBe(sniffed);
      const served = await api.fetch(file.url);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type"), name).toMatch(new RegExp(`^${sniffed.replace("+", "\\+")}\\b`));
      expect(served.headers.get("content-disposition"), name).toMatch(/^attachment;/);
      expect(served.headers.get("x-content-type-options")).toBe("nosniff");
      expect(served.headers.get("content-security-policy")).toMatch(/^sandbox(;|$)/);
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(content))).toBe(true);
    }
    // Script with no markup and a .png name cannot be told from text: it is never an image, and plain text under
    // nosniff never runs.
    const [script] = await uploaded(api, id, [["script.png", "alert(document.cookie)", "image/png"]]);
    expect(script.mimeType).not.toBe("image/png");
    const served = await api.fetch(script.url);
    expect(served.headers.get("content-type")).not.toMatch(/^image\//);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toMatch(/^sandbox/);
    if (!/^text\/plain\b/.test(served.headers.get("content-type")!))
      expect(served.headers.get("content-disposition")).toMatch(/^attachment;/);
  });

  it("shows real images, PDF and plain text inline, whatever they are called, unless ?download=1", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const files = [
      ...(await uploaded(api, id, [
        ["dot.html", PNG, "text/html"],
        ["anim.svg", GIF, "image/svg+xml"],
      ])),
      ...(await uploaded(api, id, [["doc.pdf", PDF]])),
      ...(await uploaded(api, id, [["notes.txt", "plain words\n", "text/html"]])),
    ];
    const expected = ["image/png", "image/gif", "application/pdf", "text/plain"];
    for (const [index, file] of files.entries()) {
      expect(file.mimeType).toBe(expected[index]);
      const inline = await api.fetch(file.url);
      expect(inline.status).toBe(200);
      expect(inline.headers.get("content-type")).toMatch(new RegExp(`^${expected[index]}`));
      expect(inline.headers.get("content-disposition")).toMatch(/^inline;/);
      expect(inline.headers.get("x-content-type-options")).toBe("nosniff");
      expect(inline.headers.get("content-security-policy")).toMatch(/^sandbox/);
      const forced = await api.fetch(`${file.url}?download=1`);
      expect(forced.headers.get("content-disposition")).toMatch(/^attachment;/);
    }
    expect(Buffer.from(await (await api.fetch(files[0].url)).arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("stores a ZIP as one file, an attachment, and never unpacks it: not in the listing, not in the workspace", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const zip = zipOf("../../escaped.txt", "out of the workspace");
    const [file] = await uploaded(api, id, [["bundle.zip", new Uint8Array(zip), "image/png"]]);
    expect(file).toMatchObject({ name: "bundle.zip", mimeType: "application/zip", size: zip.length });
    const served = await api.fetch(file.url);
    expect(served.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(Buffer.from(await served.arrayBuffer()).equals(zip)).toBe(true);
    expect(await names(api, id)).toEqual(["bundle.zip"]);

    // What the tools see: the workspace holds the archive and nothing else.
    const prompt = "List the workspace of the zip test.";
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "list_workspace",
              description: "Lists the workspace.",
              parameters_schema: { type: "object" },
              code: "async function run() { return (await files.list('/')).map((entry) => [entry.name, entry.type]); }",
            },
          },
        ],
      },
      { toolCalls: [{ name: "list_workspace", args: {} }] },
      { text: "One archive." },
    ]);
    const events = await readSse(
      await sendJson(api, `/api/conversations/${id}/messages`, "POST", { content: prompt, files: [file.id] }),
    );
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const listing = ofType(events, "tool_result").find((result) => result.name === "list_workspace");
    expect(listing).toMatchObject({ ok: true, output: [["bundle.zip", "file"]] });
    expect(await names(api, id)).toEqual(["bundle.zip"]);
  });

  it("answers 304 to If-None-Match with the file's ETag, on the owner's route and a share link's", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [file] = await uploaded(api, id, [["dot.png", PNG]]);
    const first = await api.fetch(file.url);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await api.fetch(file.url, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await api.fetch(file.url, { headers: { "if-none-match": '"other"' } })).status).toBe(200);

    const { token } = (await expectJson(await sendJson(api, `/api/conversations/${id}/share`, "POST", {}), 201)) as {
      token: string;
    };
    const reader = new Api(app.url);
    const shared = `/api/share/${token}/files/${file.id}`;
    expect((await reader.fetch(shared)).headers.get("etag")).toBe(etag);
    expect((await reader.fetch(shared, { headers: { "if-none-match": etag } })).status).toBe(304);
    // Another identity sending the ETag learns nothing of a file it may not read.
    expect((await reader.fetch(file.url, { headers: { "if-none-match": etag } })).status).toBe(404);
  });
});

describe("limits", () => {
  it("refuses one file over the per-file limit, and keeps nothing of that upload", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const big = await upload(api, id, [
      ["fine.txt", "fine"],
      ["big.bin", new Uint8Array(MB + 1)],
    ]);
    expect(await refusal(big, 413)).toMatch(/big\.bin is larger than 1 MB, the limit of one file/);
    expect(await names(api, id)).toEqual([]);
    // The limit itself is allowed.
    const exact = await api.createConversation();
    await uploaded(api, exact.id, [["exact.bin", new Uint8Array(MB)]]);
    expect(await names(api, exact.id)).toEqual(["exact.bin"]);
  });

  it("refuses a conversation over its total across several uploads, naming it, until files are deleted", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [first] = await uploaded(api, id, [["one.bin", new Uint8Array(MB)]]);
    await uploaded(api, id, [["two.bin", new Uint8Array(0.9 * MB)]]);
    // 0.1 MB is left: the second part goes past it by a little (the refusal of a large rest is the next test's).
    const over = await upload(api, id, [
      ["small.txt", "small"],
      ["three.bin", new Uint8Array(0.1 * MB + 1024)],
    ]);
    expect(await refusal(over, 413)).toMatch(
      /three\.bin does not fit: this conversation's files may total 2 MB and hold 1\.9 MB; delete some first/,
    );
    expect(await names(api, id)).toEqual(["one.bin", "two.bin"]);
    expect((await api.fetch(first.url, { method: "DELETE" })).status).toBe(204);
    await uploaded(api, id, [["three.bin", new Uint8Array(0.1 * MB + 1024)]]);
    expect(await names(api, id)).toEqual(["two.bin", "three.bin"]);
  });

  it("refuses an identity over its total across two conversations, naming it", async () => {
    const api = new Api(app.url);
    const [a, b] = [await api.createConversation(), await api.createConversation()];
    await uploaded(api, a.id, [["a1.bin", new Uint8Array(MB)]]);
    await uploaded(api, a.id, [["a2.bin", new Uint8Array(MB)]]);
    await uploaded(api, b.id, [["b1.bin", new Uint8Array(MB)]]);
    // b has room for 1 MB more; its owner for none.
    const over = await upload(api, b.id, [["b2.bin", "a few bytes"]]);
    expect(await refusal(over, 413)).toMatch(
      /b2\.bin does not fit: your files may total 3 MB over all your conversations and hold 3 MB/,
    );
    expect(await names(api, b.id)).toEqual(["b1.bin"]);
    expect(await names(api, a.id)).toEqual(["a1.bin", "a2.bin"]);
  });

  it("does not let concurrent uploads together pass the conversation's total", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const url = `${app.url}/api/conversations/${id}/files`;
    const headers = { cookie: api.cookie!, "content-type": `multipart/form-data; boundary=${BOUNDARY}` };
    // A refused upload's connection may be reset (the next test's defect): that is no acceptance either.
    const outcomes = await onOwnConnections((send) =>
      Promise.all(
        [1, 2, 3, 4].map((n) =>
          outcomeOf(
            send(url, {
              method: "POST",
              headers,
              body: multipart([quoted(`race-${n}.bin`, Buffer.alloc(0.9 * MB))]),
            }),
          ),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "201").length, outcomes.join("\n")).toBeLessThanOrEqual(2);
    const total = (await listed(api, id)).reduce((sum, file) => sum + file.size, 0);
    expect(total).toBeLessThanOrEqual(2 * MB);
  });

  it("answers a refusal the client can read while it is still sending, and the connection stays usable", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const url = `${app.url}/api/conversations/${id}/files`;
    const cookie = { cookie: api.cookie! };
    const body = multipart([quoted("huge.bin", Buffer.alloc(3 * MB))]);
    const outcomes = await onOwnConnections(async (send) => {
      const seen: string[] = [];
      for (let n = 0; n < 3; n++) {
        const headers = { ...cookie, "content-type": `multipart/form-data; boundary=${BOUNDARY}` };
        const answer = await outcomeOf(send(url, { method: "POST", headers, body }));
        seen.push(`${answer} / then ${await outcomeOf(send(url, { headers: cookie }))}`);
      }
      return seen;
    });
    expect(outcomes).toEqual(Array(3).fill("413 huge.bin is larger than 1 MB, the limit of one file. / then 200"));
    expect(await names(api, id)).toEqual([]);
  }, 90_000);

  it("takes an upload of exactly TOOLSMITH_MESSAGE_MAX_FILES files", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const three = await upload(api, id, [
      ["1.txt", "1"],
      ["2.txt", "2"],
      ["3.txt", "3"],
    ]);
    expect(three.status, await three.clone().text()).toBe(201);
    expect(await names(api, id)).toEqual(["1.txt", "2.txt", "3.txt"]);
  });

  it("refuses an upload of more parts than TOOLSMITH_MESSAGE_MAX_FILES, keeping none of them", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const four = await upload(api, id, [
      ["1.txt", "1"],
      ["2.txt", "2"],
      ["3.txt", "3"],
      ["4.txt", "4"],
    ]);
    expect(await refusal(four, 413)).toMatch(/at most 3 files/);
    const many = await sendMultipart(api, id, multipart(Array.from({ length: 50 }, (_, n) => quoted(`${n}.txt`))));
    expect(await refusal(many, 413)).toMatch(/at most 3 files/);
    expect(await names(api, id)).toEqual([]);
  });

  it("refuses a message naming more files than the limit, and attaches none of them", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) ids.push((await uploaded(api, id, [[`${n}.txt`, String(n)]]))[0].id);
    const send = await sendJson(api, `/api/conversations/${id}/messages`, "POST", { content: "All", files: ids });
    expect(await refusal(send, 413)).toMatch(/A message attaches at most 3 files; this one names 4/);
    expect((await listed(api, id)).map((file) => file.messageId)).toEqual([null, null, null, null]);
    const conversation = (await api.conversation(id)) as { messages: unknown[] };
    expect(conversation.messages).toEqual([]);
  });
});

describe("the upload rate", () => {
  let limited: AppServer;
  beforeAll(async () => {
    limited = scriptedApp(model.url, { ...LIMITS, TOOLSMITH_RATE_UPLOADS_PER_MINUTE: "3" });
    await limited.start();
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it("answers 429 with Retry-After past the rate, counting each file, and keeps nothing of the refused upload", async () => {
    const first = new Api(limited.url);
    const a = await first.createConversation();
    for (const n of [1, 2, 3]) await uploaded(first, a.id, [[`${n}.txt`, "x"]]);
    const fourth = await upload(first, a.id, [["4.txt", "x"]]);
    expect(await refusal(fourth.clone(), 429)).toMatch(/Too many files uploaded in a minute; try again in \d+ s/);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await names(first, a.id)).toEqual(["1.txt", "2.txt", "3.txt"]);

    // Two files count two: the second of an upload past the rate takes the first with it.
    const second = new Api(limited.url);
    const b = await second.createConversation();
    await uploaded(second, b.id, [
      ["1.txt", "x"],
      ["2.txt", "x"],
    ]);
    const past = await upload(second, b.id, [
      ["3.txt", "x"],
      ["4.txt", "x"],
    ]);
    expect(past.status).toBe(429);
    expect(past.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await names(second, b.id)).toEqual(["1.txt", "2.txt"]);

    // A client that takes a fresh identity for each upload is still bounded by its address (three times the rate).
    const statuses: number[] = [];
    for (let n = 0; n < 10 && !statuses.includes(429); n++) {
      const fresh = new Api(limited.url);
      const { id } = await fresh.createConversation();
      const answer = await upload(fresh, id, [["x.txt", "x"]]);
      await answer.text();
      statuses.push(answer.status);
    }
    expect(statuses).toContain(429);
    // Three left of the address's nine, and a token back every 6⅔ s.
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(5);
  });
});

describe("malformed bodies", () => {
  it("answers 400 to a body that is not multipart: JSON, text, none declared", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const path = `/api/conversations/${id}/files`;
    const json = await sendJson(api, path, "POST", { file: "x" });
    expect(await refusal(json, 400)).toMatch(/multipart\/form-data/);
    const text = await api.fetch(path, { method: "POST", headers: { "content-type": "text/plain" }, body: "file=x" });
    expect(await refusal(text, 400)).toMatch(/multipart\/form-data/);
    const urlencoded = await api.fetch(path, { method: "POST", body: new URLSearchParams({ file: "x" }) });
    expect(await refusal(urlencoded, 400)).toMatch(/multipart\/form-data/);
    const none = await rawRequest(`${app.url}${path}`, {
      method: "POST",
      headers: { cookie: api.cookie! },
      body: multipart([quoted("x.txt")]),
    });
    expect(none.status).toBe(400);
    expect(JSON.parse(none.body.toString()).error.message).toMatch(/multipart\/form-data/);
    const empty = await api.fetch(path, { method: "POST", headers: { "content-type": "multipart/form-data" } });
    expect(await refusal(empty, 400)).toMatch(/multipart\/form-data/);
    expect(await names(api, id)).toEqual([]);
  });

  it("answers 400 to a missing, empty, wrong or overlong boundary", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const path = `/api/conversations/${id}/files`;
    const post = (contentType: string) =>
      api.fetch(path, {
        method: "POST",
        headers: { "content-type": contentType },
        body: new Uint8Array(multipart([quoted("a.txt", "aaa"), quoted("b.txt", "bbb")])),
      });
    expect(await refusal(await post("multipart/form-data; charset=utf-8"), 400)).toMatch(/multipart\/form-data/);
    expect(await refusal(await post("multipart/form-data; boundary="), 400)).toMatch(/multipart\/form-data/);
    expect(await refusal(await post("multipart/form-data; boundary=not-the-one"), 400)).toMatch(/malformed/);
    expect((await post(`multipart/form-data; boundary="${"b".repeat(300)}"`)).status).toBe(400);
    await healthy();
    expect(await names(api, id)).toEqual([]);
  });

  it("answers 400 to a body cut off in a part's headers, or after a header that is none", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const inHeaders = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filena`);
    expect(await refusal(await sendMultipart(api, id, inHeaders), 400)).toMatch(/malformed/);
    const garbage = Buffer.from(`--${BOUNDARY}\r\n${"X".repeat(20_000)}\r\n\r\nbody\r\n--${BOUNDARY}--\r\n`);
    expect((await sendMultipart(api, id, garbage)).status).toBe(400);
    await healthy();
    expect(await names(api, id)).toEqual([]);
  });

  it("answers 400 to a body cut off inside a file's bytes, or without its closing boundary, keeping nothing", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    // The first part whole, the second cut in the middle of its bytes: the first is not kept either.
    const cut = Buffer.concat([
      multipart([quoted("whole.txt", "whole")], { closed: false }),
      multipart([quoted("cut.bin", Buffer.alloc(64 * 1024, 1))], { closed: false }).subarray(0, 32 * 1024),
    ]);
    const unclosed = multipart([quoted("open.txt", "open")], { closed: false });
    const outcomes = [
      await outcomeOf(sendMultipart(api, id, cut).then(asRaw)),
      await outcomeOf(sendMultipart(api, id, unclosed).then(asRaw)),
    ];
    expect(outcomes).toEqual([expect.stringMatching(/^400 .*malformed/), expect.stringMatching(/^400 .*malformed/)]);
    await healthy();
    expect(await names(api, id)).toEqual([]);
  });

  it("keeps nothing of an upload whose connection drops mid-part, and stays healthy", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const { port } = new URL(app.url);
    const head = Buffer.concat([
      multipart([quoted("first.txt", "complete")], { closed: false }),
      multipart([quoted("second.bin", Buffer.alloc(200 * 1024, 7))], { closed: false }).subarray(0, 100 * 1024),
    ]);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => {
        socket.write(
          [
            `POST /api/conversations/${id}/files HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            `Cookie: ${api.cookie}`,
            `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
            `Content-Length: ${head.length + 500 * 1024}`,
            "",
            "",
          ].join("\r\n"),
        );
        socket.write(head, () => setTimeout(() => (socket.destroy(), resolve()), 300));
      });
      socket.on("error", reject);
    });
    await healthy();
    // Its first part was whole: it goes with the rest, soon after the connection does.
    await waitFor(async () => (await names(api, id)).length === 0);
    expect(await names(api, id)).toEqual([]);
    // And the next upload goes through.
    await uploaded(api, id, [["after.txt", "after"]]);
    expect(await names(api, id)).toEqual(["after.txt"]);
  });

  it("answers 400 to a part named other than `file`, a text field, and no parts, keeping nothing", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const otherName = await sendMultipart(
      api,
      id,
      multipart([quoted("ok.txt"), { disposition: 'form-data; name="upload"; filename="x.txt"', body: "x" }]),
    );
    expect(await refusal(otherName, 400)).toMatch(/part named "upload"/);
    const form = new FormData();
    form.append("file", new Blob(["x"]), "ok.txt");
    form.append("comment", "hello");
    const field = await api.fetch(`/api/conversations/${id}/files`, { method: "POST", body: form });
    expect(await refusal(field, 400)).toMatch(/multipart\/form-data/);
    const onlyField = await sendMultipart(api, id, multipart([{ disposition: 'form-data; name="file"', body: "x" }]));
    expect(onlyField.status).toBe(400);
    const none = await sendMultipart(api, id, Buffer.from(`--${BOUNDARY}--\r\n`));
    expect(await refusal(none, 400)).toMatch(/holds no file/);
    const noDisposition = await sendMultipart(
      api,
      id,
      Buffer.from(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--\r\n`),
    );
    expect(noDisposition.status).toBe(400);
    expect(await names(api, id)).toEqual([]);
    await healthy();
  });
});

describe("ownership", () => {
  it("answers 404 for another identity's conversation and files on every route, and leaves them alone", async () => {
    const [owner, stranger] = [new Api(app.url), new Api(app.url)];
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["secret.txt", "secret"]]);
    await stranger.identity();

    expect(await refusal(await upload(stranger, id, [["x.txt", "x"]]), 404)).toMatch(/conversation/i);
    expect((await stranger.fetch(`/api/conversations/${id}/files`)).status).toBe(404);
    expect((await stranger.fetch(file.url)).status).toBe(404);
    expect((await stranger.fetch(`${file.url}?download=1`)).status).toBe(404);
    expect((await stranger.fetch(file.url, { method: "DELETE" })).status).toBe(404);
    // With an API token of its own, too.
    const { token } = await stranger.createToken("probe");
    const bearer = { authorization: `Bearer ${token}` };
    expect((await stranger.fetch(file.url, { headers: bearer })).status).toBe(404);
    expect((await stranger.fetch(file.url, { method: "DELETE", headers: bearer })).status).toBe(404);
    expect((await upload(new Api(app.url), id, [["x.txt", "x"]])).status).toBe(404);
    // Ids that are not one.
    for (const bogus of ["nope", "..%2F..%2Fetc%2Fpasswd", encodeURIComponent(file.id + "'--")])
      expect((await owner.fetch(`/api/files/${bogus}`)).status).toBe(404);

    expect(await names(owner, id)).toEqual(["secret.txt"]);
    expect(await (await owner.fetch(file.url)).text()).toBe("secret");
  });

  it("refuses to attach another's file, or one of another conversation, with a 400 naming it", async () => {
    const [owner, stranger] = [new Api(app.url), new Api(app.url)];
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["secret.txt", "secret"]]);
    const own = await stranger.createConversation();
    const send = await sendJson(stranger, `/api/conversations/${own.id}/messages`, "POST", {
      content: "Read it",
      files: [file.id],
    });
    expect(await refusal(send, 400)).toContain(`files: "${file.id}" is not a file of this conversation`);
    const other = await owner.createConversation();
    const sideways = await sendJson(owner, `/api/conversations/${other.id}/messages`, "POST", {
      content: "Read it",
      files: [file.id],
    });
    expect(await refusal(sideways, 400)).toContain(`"${file.id}"`);
    expect((await listed(owner, id))[0].messageId).toBeNull();
  });

  it("opens through a share link only that conversation's files, and nothing once the link is revoked", async () => {
    const [owner, stranger, reader] = [new Api(app.url), new Api(app.url), new Api(app.url)];
    const shared = await owner.createConversation();
    const privateOne = await owner.createConversation();
    const [open] = await uploaded(owner, shared.id, [["open.txt", "open"]]);
    const [hidden] = await uploaded(owner, privateOne.id, [["hidden.txt", "hidden"]]);
    const theirs = await stranger.createConversation();
    const [foreign] = await uploaded(stranger, theirs.id, [["theirs.txt", "theirs"]]);
    const { token } = (await expectJson(
      await sendJson(owner, `/api/conversations/${shared.id}/share`, "POST", {}),
      201,
    )) as { token: string };

    expect(await (await reader.fetch(`/api/share/${token}/files/${open.id}`)).text()).toBe("open");
    expect((await reader.fetch(`/api/share/${token}/files/${hidden.id}`)).status).toBe(404);
    expect((await reader.fetch(`/api/share/${token}/files/${foreign.id}`)).status).toBe(404);
    expect((await reader.fetch(`/api/share/${token}/files/nope`)).status).toBe(404);
    expect((await reader.fetch(`/api/share/not-a-token/files/${open.id}`)).status).toBe(404);
    expect((await reader.fetch(open.url)).status).toBe(404);

    expect((await owner.fetch(`/api/conversations/${shared.id}/share`, { method: "DELETE" })).status).toBe(204);
    expect((await reader.fetch(`/api/share/${token}/files/${open.id}`)).status).toBe(404);
    expect((await reader.fetch(`/api/share/${token}/files/${open.id}?download=1`)).status).toBe(404);
    // A new link is a new token: the revoked one stays closed.
    await expectJson(await sendJson(owner, `/api/conversations/${shared.id}/share`, "POST", {}), 201);
    expect((await reader.fetch(`/api/share/${token}/files/${open.id}`)).status).toBe(404);
  });

  it("refuses a cross-site browser write (the cookie, no bearer) with 403, and takes the same with a bearer", async () => {
    const owner = new Api(app.url);
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["keep.txt", "keep"]]);
    const evil = { origin: "http://evil.example" };
    const form = () => {
      const body = new FormData();
      body.append("file", new Blob(["planted"]), "planted.txt");
      return body;
    };
    const path = `/api/conversations/${id}/files`;
    expect(await refusal(await owner.fetch(path, { method: "POST", headers: evil, body: form() }), 403)).toMatch(
      /another site/,
    );
    const fetchMetadata = { "sec-fetch-site": "cross-site" };
    expect((await owner.fetch(path, { method: "POST", headers: fetchMetadata, body: form() })).status).toBe(403);
    expect((await owner.fetch(file.url, { method: "DELETE", headers: evil })).status).toBe(403);
    expect((await owner.fetch(file.url, { method: "DELETE", headers: fetchMetadata })).status).toBe(403);
    // A page of the app itself may.
    const sameOrigin = { origin: app.url, "sec-fetch-site": "same-origin" };
    await expectJson(await owner.fetch(path, { method: "POST", headers: sameOrigin, body: form() }), 201);
    expect(await names(owner, id)).toEqual(["keep.txt", "planted.txt"]);
    expect(await (await owner.fetch(file.url)).text()).toBe("keep");

    // A bearer token is never sent by a browser on its own: no cross-site check for it.
    const { token } = await owner.createToken("script");
    const bearer = { ...evil, authorization: `Bearer ${token}` };
    await expectJson(await owner.fetch(path, { method: "POST", headers: bearer, body: form() }), 201);
    expect((await owner.fetch(file.url, { method: "DELETE", headers: bearer })).status).toBe(204);
  });

  it.each([
    ["POST", "/api/conversations/{id}/files"],
    ["GET", "/api/conversations/{id}/files"],
    ["GET", "/api/files/{file}"],
    ["DELETE", "/api/files/{file}"],
    ["GET", "/api/share/{token}/files/{file}"],
  ])("answers %s %s with a made-up API token with a documented 401", async (method, template) => {
    const owner = new Api(app.url);
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["a.txt", "a"]]);
    const { token } = (await expectJson(await sendJson(owner, `/api/conversations/${id}/share`, "POST", {}), 201)) as {
      token: string;
    };
    const path = template.replace("{id}", id).replace("{file}", file.id).replace("{token}", token);
    const form = new FormData();
    form.append("file", new Blob(["x"]), "x.txt");
    const answer = await new Api(app.url).fetch(path, {
      method,
      headers: { authorization: "Bearer made-up-token" },
      body: method === "POST" ? form : undefined,
    });
    expect(answer.status).toBe(401);
    expect(await names(owner, id)).toEqual(["a.txt"]);
  });
});
