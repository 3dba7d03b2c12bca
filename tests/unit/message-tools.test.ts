import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sendEmail } from "@/lib/tools/native/send-email";
import { webSearch } from "@/lib/tools/native/web-search";
import { webhook } from "@/lib/tools/native/webhook";

// The hooks below listen on loopback, which the fetch guard refuses (its own tests cover that): here it dials them.
vi.mock("@/lib/sandbox/fetch-guard", async (importOriginal) => {
  const guard = await importOriginal<typeof import("@/lib/sandbox/fetch-guard")>();
  return {
    ...guard,
    guardedFetch: (...[request, options]: Parameters<typeof guard.guardedFetch>) =>
      guard.guardedFetch(request, { ...options, isAllowed: () => true }),
  };
});

/** The settings are parsed once per environment object (lib/settings/environment.mjs): another one is a new object. */
const setEnv = (changes: Record<string, string | undefined>) => (process.env = { ...process.env, ...changes });

const context = (settings = {}) =>
  ({
    ownerId: "o",
    conversationId: "c",
    runId: "r",
    signal: new AbortController().signal,
    tools: { get: () => undefined, add: () => {} },
    settings,
  }) as never;
async function call<
  T extends { parse: (input: unknown) => unknown; execute: (input: never, context: never) => unknown },
>(tool: T, input: unknown, settings = {}) {
  const parsed = tool.parse(input) as { ok: boolean; input: never; problems?: string[] };
  if (!parsed.ok) throw new Error(parsed.problems!.join("; "));
  return (await tool.execute(parsed.input, context(settings))) as {
    ok: boolean;
    output?: Record<string, unknown>;
    error?: string;
  };
}

describe("send_email, through a real SMTP server on loopback", () => {
  const received: { from: string; to: string[]; data: string }[] = [];
  let server: SMTPServer;
  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, done) {
        let data = "";
        stream.on("data", (chunk: Buffer) => (data += chunk));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            data,
          });
          done();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    setEnv({ SMTP_URL: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}` });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends plain text, or the body as HTML with html: true, to allowed recipients, and the server receives them", async () => {
    const sent = await call(
      sendEmail,
      { to: ["ada@example.com", "bob@team.example.org"], subject: "Weekly report", body: "All green." },
      { allowed_recipients: ["ada@example.com", "@team.example.org"] },
    );
    expect(sent).toMatchObject({
      ok: true,
      output: { message_id: expect.stringMatching(/^<.+@.+>$/), accepted: ["ada@example.com", "bob@team.example.org"] },
    });
    expect(received).toHaveLength(1);
    expect(received[0].to).toEqual(["ada@example.com", "bob@team.example.org"]);
    expect(received[0].data).toContain("Subject: Weekly report");
    expect(received[0].data).toMatch(/Content-Type: text\/plain/);
    expect(received[0].data).toContain(`Message-ID: ${sent.output!.message_id}`);

    await call(sendEmail, {
      to: "ada@example.com",
      subject: "Report Ready",
      body: "<p>All <b>green</b>.</p>",
      html: true,
    });
    expect(received[1].data).toMatch(/Content-Type: text\/html/);
    expect(received[1].data).not.toMatch(/text\/plain|multipart/);
    expect(received[1].data).toContain("<p>All <b>green</b>.</p>");

    // Toolsmith's own form, kept: an HTML version beside the plain-text body.
    await call(sendEmail, { to: "ada@example.com", subject: "Both", body: "All green.", html: "<b>green</b>" });
    expect(received[2].data).toMatch(/multipart\/alternative[\s\S]*text\/plain[\s\S]*All green\.[\s\S]*text\/html/);
  });

  it("refuses recipients the profile does not allow, sending nothing", async () => {
    const before = received.length;
    expect(
      await call(
        sendEmail,
        { to: "mallory@evil.test", subject: "x", body: "y" },
        { allowed_recipients: ["@example.com"] },
      ),
    ).toMatchObject({ ok: false, error: expect.stringContaining("not among the recipients") });
    expect(received).toHaveLength(before);
  });

  it("says how to configure SMTP when it is not", async () => {
    const configured = process.env;
    setEnv({ SMTP_URL: undefined });
    try {
      expect(await call(sendEmail, { to: "a@example.com", subject: "x", body: "y" })).toMatchObject({
        ok: false,
        error: expect.stringContaining("set SMTP_URL"),
      });
    } finally {
      process.env = configured;
    }
  });
});

describe("webhook", () => {
  let hooks: http.Server;
  let url = "";
  const payloads: unknown[] = [];
  beforeAll(async () => {
    hooks = http.createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      payloads.push(JSON.parse(body));
      if (req.url === "/json") res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true,"ts":"1"}');
      else if (req.url === "/long")
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text: "x".repeat(3000) }));
      else res.writeHead(202, { "content-type": "text/plain" }).end("ok");
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  });
  afterAll(() => hooks.close());

  it("answers the reply's body as response: JSON when it is JSON, else text, cut at 2,000 characters", async () => {
    expect(await call(webhook, { url: `${url}/json`, payload: { text: "Task completed!" } })).toEqual({
      ok: true,
      output: { status_code: 200, ok: true, response: { ok: true, ts: "1" }, truncated: false },
    });
    expect(payloads.at(-1)).toEqual({ text: "Task completed!" });
    expect(await call(webhook, { url: `${url}/text`, payload: [1], method: "PUT" })).toEqual({
      ok: true,
      output: { status_code: 202, ok: true, response: "ok", truncated: false },
    });
    const long = await call(webhook, { url: `${url}/long`, payload: null });
    expect(long.output).toMatchObject({ truncated: true, response: expect.stringMatching(/^\{"text":"x+$/) });
    expect((long.output!.response as string).length).toBe(2000);
  });
});

describe("web_search", () => {
  let searxng: http.Server;
  const queries: string[] = [];
  beforeAll(async () => {
    // A stand-in for SearXNG's JSON API on loopback.
    searxng = http.createServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      queries.push(`${url.pathname}?${url.searchParams}`);
      const results = Array.from({ length: 30 }, (_, i) => ({
        title: `Result ${i}`,
        url: `https://example.com/${i}`,
        content: `About ${url.searchParams.get("q")} (${i})`,
      }));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ query: url.searchParams.get("q"), results }));
    });
    await new Promise<void>((resolve) => searxng.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => searxng.close());

  it("says how to configure a provider when there is none", async () => {
    setEnv({ TOOLSMITH_SEARXNG_URL: undefined });
    expect(await call(webSearch, { query: "xml parsing" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("TOOLSMITH_SEARXNG_URL"),
    });
  });

  it("asks SearXNG's JSON API and returns at most num_results titles, URLs and snippets", async () => {
    setEnv({ TOOLSMITH_SEARXNG_URL: `http://127.0.0.1:${(searxng.address() as AddressInfo).port}/` });
    const found = await call(webSearch, { query: "xml parsing", num_results: 3 });
    expect(found).toMatchObject({
      ok: true,
      output: {
        results: [{ title: "Result 0", url: "https://example.com/0", snippet: "About xml parsing (0)" }, {}, {}],
      },
    });
    expect((found.output!.results as unknown[]).length).toBe(3);
    expect(queries.at(-1)).toBe("/search?q=xml+parsing&format=json");
    expect(() => webSearch.parse({ query: "x", num_results: 21 })).not.toThrow();
    expect(webSearch.parse({ query: "x", num_results: 21 })).toMatchObject({ ok: false });
  });
});
