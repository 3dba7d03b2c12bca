import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/lib/contract/routes";
import { Api } from "../support/api";
import { missingServerFlags } from "@/server-runtime.mjs";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
let app: AppServer;
let visitor: Api;
let conversationId: string;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
  visitor = new Api(app.url);
  conversationId = (await visitor.createConversation()).id;
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

/**
 * Whether the server's process still holds its end of the connection from the client's port (Linux's socket table:
 * an end no process holds any more has no inode).
 */
function serverHoldsConnection(serverPort: number, clientPort: number): boolean {
  const hex = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  return ["/proc/net/tcp", "/proc/net/tcp6"].some((table) =>
    fs
      .readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .some((line) => {
        const [, local, remote, , , , , , , inode] = line.trim().split(/\s+/);
        return local?.endsWith(hex(serverPort)) && remote?.endsWith(hex(clientPort)) && inode !== "0";
      }),
  );
}

/** An app of its own with these settings, and a client of it, for one test; stopped after it. */
async function withApp(
  env: Record<string, string>,
  test: (app: AppServer, client: Api) => Promise<void>,
): Promise<void> {
  const own = scriptedApp(model.url, env);
  await own.start();
  try {
    await test(own, new Api(own.url));
  } finally {
    await own.stop();
  }
}

const raw = (path: string, init: RequestInit = {}) => fetch(`${app.url}${path}`, { redirect: "manual", ...init });
const cookieOf = (response: Response) => response.headers.getSetCookie().join("; ");
const errorMessage = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message;

/** What a hostile page's auto-submitted form sends: no cookie (SameSite=Lax), Fetch Metadata and Origin of its site. */
const crossSiteForm = {
  "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "navigate",
  origin: "http://evil.test",
  "content-type": "application/x-www-form-urlencoded",
};

describe("the server process", () => {
  it("runs with its Node flags where the runtime can restart with them (Node 22.15 and later)", () => {
    const expected = "execve" in process ? missingServerFlags({ env: {}, execArgv: [] }) : [];
    expect(app.commandLine()).toEqual(expect.arrayContaining(expected));
    if (expected.length > 0) expect(app.commandLine()).toContain("--max-old-space-size=384");
  });
});

describe("requests from other sites", () => {
  it.each([
    ["send a message", () => `/api/conversations/${conversationId}/messages`],
    ["create a conversation", () => "/api/conversations"],
    ["share", () => `/api/conversations/${conversationId}/share`],
    ["fork", () => "/api/share/some-token/fork"],
    ["continue from a step", () => `/api/conversations/${conversationId}/fork`],
    // /api/mcp-servers once slipped past the proxy, whose matcher left out every path starting /api/mcp.
    ["connect an MCP server", () => "/api/mcp-servers"],
    // The proxy leaves this one out; the route checks itself as the proxy would (lib/http/proxy-checks.ts).
    ["run a tool", () => "/api/tools/any-tool/execute"],
  ])("a cross-site form that tries to %s gets 403 and no identity cookie", async (_action, path) => {
    const response = await raw(path(), { method: "POST", headers: crossSiteForm, body: "content=hi" });
    expect(response.status).toBe(403);
    expect(await errorMessage(response)).toMatch(/another site/);
    expect(cookieOf(response)).toBe("");
  });

  it("refuses writes carrying the visitor's cookie from a sibling site or a foreign Origin, and changes nothing", async () => {
    const before = await visitor.conversation(conversationId);
    const foreign: Record<string, string>[] = [
      { "sec-fetch-site": "same-site" },
      { origin: "http://evil.test" },
      { origin: "null" },
    ];
    for (const headers of foreign) {
      const response = await visitor.fetch(`/api/conversations/${conversationId}`, {
        method: "PATCH",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ title: "pwned" }),
      });
      expect(response.status).toBe(403);
    }
    expect((await visitor.conversation(conversationId)).title).toBe(before.title);
  });

  it("accepts the app's own pages (same-origin) and scripts that send no browser headers", async () => {
    const own = await visitor.fetch(`/api/conversations/${conversationId}`, {
      method: "PATCH",
      headers: { "sec-fetch-site": "same-origin", origin: app.url, "content-type": "application/json" },
      body: JSON.stringify({ title: "Renamed from the app" }),
    });
    expect(own.status).toBe(200);
    const script = await visitor.fetch("/api/conversations", { method: "POST" });
    expect(script.status).toBe(201);
  });

  it("answers a tool call through the API, which the proxy leaves out, as the proxy answers the routes it serves", async () => {
    const call = (headers: Record<string, string>) =>
      raw("/api/tools/no-such-tool/execute", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ input: {} }),
      });
    const cookie = `toolsmith_id=${await visitor.identity()}`;
    for (const [headers, status, code] of [
      [{ cookie, "sec-fetch-site": "same-site" }, 403, "cross_site"],
      [{ cookie, origin: "http://evil.test" }, 403, "cross_site"],
      [{}, 401, "no_credentials"],
      [{ cookie: "toolsmith_id=forged.value" }, 401, "no_credentials"],
      // Past the checks, the route's own answer: the tool is not the visitor's.
      [{ cookie, "sec-fetch-site": "same-origin" }, 404, "not_found"],
      [{ authorization: "Bearer not-a-token", "sec-fetch-site": "cross-site" }, 401, "invalid_token"],
    ] as const) {
      const response = await call(headers);
      expect(response.status, JSON.stringify(headers)).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
      expect(cookieOf(response)).toBe("");
    }
    // The same refusals as a route behind the proxy gives.
    const proxied = await raw("/api/tools", { method: "POST", headers: { "content-type": "application/json" } });
    expect(await proxied.json()).toEqual(await (await call({})).json());
  });

  it("serves a page opened from another site without minting an identity", async () => {
    const response = await raw("/", { headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" } });
    expect(response.status).toBe(200);
    expect(cookieOf(response)).toBe("");
  });
});

describe("cookies and bodies that used to answer 500", () => {
  it("keeps the valid identity when a planted, undecodable duplicate comes first or last", async () => {
    const valid = await visitor.identity();
    for (const cookie of [
      `toolsmith_id=%E0%A4%A; toolsmith_id=${valid}`,
      `toolsmith_id=${valid}; toolsmith_id=%E0%A4%A`,
    ]) {
      const page = await raw(`/c/${conversationId}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(cookieOf(page)).toBe("");
      const api = await raw(`/api/conversations/${conversationId}`, { headers: { cookie } });
      expect(api.status).toBe(200);
    }
    const onlyGarbage = await raw("/", { headers: { cookie: "toolsmith_id=%E0%A4%A" } });
    expect(onlyGarbage.status).toBe(200);
    expect(cookieOf(onlyGarbage)).toMatch(/^toolsmith_id=/);
  });

  it.each([
    ["rename", "PATCH", () => `/api/conversations/${conversationId}`, '{"title":"a\\ud800b"}', "title"],
    ["create", "POST", () => "/api/conversations", '{"title":"\\udc00"}', "title"],
    ["send", "POST", () => `/api/conversations/${conversationId}/messages`, '{"content":"hi \\ud800"}', "content"],
  ])("refuses a lone surrogate in a JSON body (%s) with 400", async (_action, method, path, body, field) => {
    const response = await visitor.fetch(path(), { method, headers: { "content-type": "application/json" }, body });
    expect(response.status).toBe(400);
    expect(await errorMessage(response)).toMatch(new RegExp(`${field} contains an unpaired UTF-16 surrogate`));
  });

  it("refuses a body that is not declared as JSON (text/plain is what cross-site forms can send)", async () => {
    const response = await visitor.fetch(`/api/conversations/${conversationId}/messages`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"content":"hi"}',
    });
    expect(response.status).toBe(415);
    expect(await errorMessage(response)).toMatch(/Content-Type: application\/json/);
  });

  it("answers a body nested 100,000 levels deep with 400 on every JSON route, and stays healthy", async () => {
    const tool = await (
      await visitor.fetch("/api/tools", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: "deep_probe",
          description: "A tool for the probe's routes.",
          parameters_schema: { type: "object" },
          code: "function run() { return 1; }",
        }),
      })
    ).json();
    const { token } = await (
      await visitor.fetch(`/api/conversations/${conversationId}/share`, { method: "POST" })
    ).json();
    const ids: Record<string, string> = { id: tool.id, token, approvalId: "none" };
    // The MCP server and SEAT's routes take an API token, never the cookie.
    const bearer = { authorization: `Bearer ${(await visitor.createToken("deep probe")).token}` };
    const conversationRoutes = /^\/api\/conversations\/\{id\}/;
    const deep = (open: string, close: string, levels = 100_000) => `${open.repeat(levels)}${close.repeat(levels)}`;
    // Objects as deep as fit in a body (256 KB): {"":{"":…{}…}}.
    const bodies = [deep("[", "]"), deep('{"":', "}", 40_000).replace('{"":}', "{}"), `{"content":${deep("[", "]")}}`];
    const probed: string[] = [];
    for (const [template, operations] of Object.entries(apiRoutes)) {
      for (const [method, operation] of Object.entries(operations ?? {})) {
        const requestBody = (operation as { requestBody?: { content: Record<string, unknown> } }).requestBody;
        // Only the JSON routes: an upload takes multipart (and says so to a JSON body, with a 400 of its own).
        if (!requestBody?.content["application/json"]) continue;
        const path = template
          .replace(conversationRoutes, `/api/conversations/${conversationId}`)
          .replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);
        for (const body of bodies) {
          const response = await visitor.fetch(path, {
            method: method.toUpperCase(),
            headers: {
              "content-type": "application/json",
              ...(template === "/api/mcp" || template.startsWith("/seat") ? bearer : {}),
            },
            body,
          });
          // SEAT's routes answer as FastAPI does: 422, the problem in `detail`.
          const answer = template.startsWith("/seat")
            ? `${response.status} ${((await response.json()) as { detail: { msg: string }[] }).detail[0].msg}`
            : `${response.status} ${await errorMessage(response)}`;
          expect(answer, `${method} ${template}`).toMatch(/^(400|422) .*nested more than 64 levels deep/);
        }
        probed.push(`${method} ${template}`);
      }
    }
    expect(probed).toContain("post /api/conversations/{id}/messages");
    expect(probed).toContain("post /seat/tools/{id}/execute");
    // Brackets inside a string are text, however many: a title of them is taken.
    const title = `[{"\\"${"[".repeat(150)}`;
    const renamed = await visitor.fetch(`/api/conversations/${conversationId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title }),
    });
    expect(((await renamed.json()) as { title: string }).title).toBe(title);
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200);
  });

  it("stores model text with a lone surrogate, and a title cut inside an emoji", async () => {
    const prompt = `${"a".repeat(58)}😀 and more words after the cut`;
    model.script(prompt, [
      {
        raw: [
          `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"half a pair: \\ud83d"}}]}\n\n`,
          `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
          "data: [DONE]\n\n",
        ],
      },
    ]);
    const conversation = await visitor.createConversation();
    const events = await visitor.run(conversation.id, prompt);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const stored = await visitor.conversation(conversation.id);
    expect(stored.messages.at(-1).content).toBe("half a pair: \ufffd");
    expect(stored.title).toBe(`${"a".repeat(58)}😀…`);
  });
});

describe("headers", () => {
  it("sends a Content-Security-Policy whose nonce is on every script of the page", async () => {
    const response = await visitor.fetch("/");
    const policy = response.headers.get("content-security-policy")!;
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("img-src 'self' data:");
    expect(policy).not.toContain("unsafe-eval");
    const nonce = /'nonce-([^']+)'/.exec(policy)![1];
    const html = await response.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(script).toContain(`nonce="${nonce}"`);
    expect(response.headers.get("strict-transport-security")).toBeNull();
  });

  it("does not trust X-Forwarded-Host from anyone: share links stay on the app's host", async () => {
    const response = await visitor.fetch(`/api/conversations/${conversationId}/share`, {
      method: "POST",
      headers: { "x-forwarded-host": "evil.test", "x-forwarded-proto": "https" },
    });
    expect(response.status).toBeLessThan(300);
    const { url } = (await response.json()) as { url: string };
    expect(url).toMatch(new RegExp(`^${app.url}/s/`));
  });
});

describe("addresses that cannot be decoded, which Next answered with a bare 500", () => {
  it("answers 400 from the server: JSON under /api, a line of text elsewhere, with the app's security headers", async () => {
    const pages = ["/c/%", "/s/%E0%A4%A", "/tools/%", `/c/${conversationId}%`, "/%"];
    const api = ["/api/share/%", "/api/conversations/%", "/api/tools/%E0%A4%A", "/api/share/%/events"];
    for (const path of [...pages, ...api]) {
      const response = await visitor.fetch(path);
      expect(response.status, path).toBe(400);
      for (const [name, value] of [
        ["x-content-type-options", "nosniff"],
        ["x-frame-options", "DENY"],
        ["referrer-policy", "same-origin"],
        ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
      ])
        expect(response.headers.get(name), `${path} ${name}`).toBe(value);
      if (api.includes(path))
        expect((await response.json()).error, path).toEqual({
          code: "bad_request",
          message: expect.stringMatching(/^The address's path cannot be decoded: a "%" must start an escape/),
        });
      else expect(await response.text(), path).toMatch(/^400 Bad Request: The address's path cannot be decoded/);
    }
    // A write is refused the same way, before the app acts on it.
    expect((await visitor.fetch("/api/conversations/%/messages", { method: "POST" })).status).toBe(400);
    // A query string Next reads with URLSearchParams, which keeps what it cannot decode: served as before.
    expect((await visitor.fetch("/api/tools?q=%")).status).toBe(200);
    expect((await visitor.fetch("/api/audit?tool=%E0%A4%A")).status).toBe(200);
    // The server stays healthy.
    expect((await visitor.fetch(`/api/conversations/${conversationId}`)).status).toBe(200);
  });
});

describe("behind a configured public URL", () => {
  it("uses TOOLSMITH_PUBLIC_URL for links, the __Host- cookie and HSTS over https", async () => {
    await withApp({ TOOLSMITH_PUBLIC_URL: "https://toolsmith.example" }, async (_, client) => {
      const first = await client.fetch("/api/conversations");
      expect(cookieOf(first)).toMatch(/^__Host-toolsmith_id=.*; Path=\/; .*Secure/i);
      expect(first.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
      const { id } = await (await client.fetch("/api/conversations", { method: "POST" })).json();
      const share = await client.fetch(`/api/conversations/${id}/share`, { method: "POST" });
      expect(((await share.json()) as { url: string }).url).toMatch(/^https:\/\/toolsmith\.example\/s\//);
      // the __Host- cookie is read back like the plain one
      expect((await client.fetch(`/api/conversations/${id}`)).status).toBe(200);
      // a tool call, which the proxy leaves out, gets the proxy's headers all the same
      const proxied = await client.fetch(`/api/conversations/${id}`);
      const call = await client.fetch("/api/tools/no-such-tool/execute", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: {} }),
      });
      expect(call.status).toBe(404);
      expect(call.headers.get("strict-transport-security")).toBe(first.headers.get("strict-transport-security"));
      const policy = (response: Response) =>
        response.headers.get("content-security-policy")?.replace(/'nonce-[^']+'/, "");
      expect(policy(call)).toBe(policy(proxied));
      // an address refused before the app gets HSTS too
      const undecodable = await client.fetch("/c/%");
      expect(undecodable.status).toBe(400);
      expect(undecodable.headers.get("strict-transport-security")).toBe(first.headers.get("strict-transport-security"));
    });
  });

  it("believes forwarded headers with TOOLSMITH_TRUST_PROXY=1", async () => {
    await withApp({ TOOLSMITH_TRUST_PROXY: "1" }, async (_, client) => {
      const { id } = await client.createConversation();
      const share = await client.fetch(`/api/conversations/${id}/share`, {
        method: "POST",
        headers: { "x-forwarded-host": "chat.example", "x-forwarded-proto": "https" },
      });
      expect(((await share.json()) as { url: string }).url).toMatch(/^https:\/\/chat\.example\/s\//);
    });
  });
});

describe("an instance at capacity", () => {
  it("answers past TOOLSMITH_MAX_REQUESTS 503 with Retry-After, never a reset, and serves again once a request ends", async () => {
    await withApp({ TOOLSMITH_MAX_REQUESTS: "2" }, async (full, client) => {
      const { id } = await client.createConversation();
      // Two event streams that stay open (?watch=1) take both places.
      const watch = () => client.fetch(`/api/conversations/${id}/events?watch=1`);
      const open = [await watch(), await watch()];
      expect(open.map((response) => response.status)).toEqual([200, 200]);
      // New connections each (the client's two are busy): answered, not reset, whatever they ask.
      const refused = await Promise.all([
        client.fetch("/api/health"),
        client.fetch("/api/conversations", { method: "POST" }),
        fetch(`${full.url}/`),
      ]);
      for (const response of refused) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("1");
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      }
      expect(((await refused[0].json()) as { error: { code: string } }).error.code).toBe("unavailable");
      expect(await errorMessage(refused[1])).toMatch(/serving as many requests as it can \(2\)/);
      expect(await refused[2].text()).toMatch(/^503 Service Unavailable: /);

      await open[0].body!.cancel();
      await expect.poll(async () => (await client.fetch("/api/health")).status).toBe(200);
      await open[1].body!.cancel();
    });
  });
});

describe("event streams", () => {
  it("limits the event streams open at once, per person and per address, and frees a place as one closes", async () => {
    await withApp({ TOOLSMITH_MAX_OPEN_STREAMS: "2" }, async (limited, client) => {
      const { id } = await client.createConversation();
      const { token } = await (await client.fetch(`/api/conversations/${id}/share`, { method: "POST" })).json();
      model.script("Stream while streams are opened.", [{ text: "word ".repeat(400), chunkSize: 4, delayMs: 20 }]);
      const own = await client.send(id, "Stream while streams are opened.");
      // The run's own stream is not one of them; these stay open while the run streams.
      const open = [await client.events(id), await client.events(id)];
      expect(open.map((response) => response.status)).toEqual([200, 200]);
      const refused = await client.events(id);
      expect(refused.status).toBe(429);
      expect(await errorMessage(refused)).toMatch(/Too many event streams open at once \(at most 2 per person\)/);
      // A share link's viewers have no identity: their address counts, for three people's worth (one is open already).
      const shared = [];
      for (let i = 0; i < 5; i++) shared.push(await fetch(`${limited.url}/api/share/${token}/events`));
      expect(shared.map((response) => response.status)).toEqual([200, 200, 200, 200, 429]);
      expect(await errorMessage(shared[4])).toMatch(
        /Too many event streams open at once from one address \(at most 6\)/,
      );

      await open[0].body!.cancel();
      await expect
        .poll(async () => {
          const again = await client.events(id);
          await again.body?.cancel();
          return again.status;
        })
        .toBe(200);
      await client.fetch(`/api/conversations/${id}/cancel`, { method: "POST" });
      await Promise.all([own, open[1], ...shared.slice(0, 4)].map((response) => response.body?.cancel()));
    });
  });

  it("cuts the stream of a client that stops reading, and disconnects it, instead of keeping the run's output for it", async () => {
    await withApp({ TOOLSMITH_CLIENT_STALL_MS: "500" }, async (patient, client) => {
      const prompt = "Stream twelve megabytes to a reader that stalls.";
      // A second of streaming: the reader follows it live (a log read whole once the run is over goes out as one write).
      // Twelve: the sockets of a reader that reads nothing take some 4 MB (loopback's send buffer grows to
      // tcp_wmem's 4 MB), and what is left must be well over the 1 MiB a client may lag; with six it sometimes was not.
      model.script(prompt, [{ text: "x".repeat(12_000_000), chunkSize: 120_000, delayMs: 10 }]);
      const { id } = await client.createConversation();
      const own = client.send(id, prompt).then((response) => response.text());
      // A reader that takes nothing.
      const stalled = await new Promise<http.IncomingMessage>((resolve) =>
        http.get(`${patient.url}/api/conversations/${id}/events`, { headers: { cookie: client.cookie } }, (response) =>
          resolve(response.pause()),
        ),
      );
      expect(await own).toContain("run_finished");
      // One that takes the whole log as fast as it can does not stall.
      expect(await (await client.events(id)).text()).toContain("run_finished");
      // Disconnected by the server: the connection, and what waits in it, is not kept for a client that reads nothing.
      // (The paused client cannot see it: it reads nothing, the end included.) It took over 3 s once, in a full CI run
      // with both projects' suites on two cores, and over 10 s with the browser tests beside it; alone it takes well
      // under one.
      // The port is read now: once the socket closes on this side too, it has none, and the poll would only throw.
      const stalledPort = stalled.socket.localPort!;
      await expect
        .poll(() => serverHoldsConnection(Number(new URL(patient.url).port), stalledPort), { timeout: 30_000 })
        .toBe(false);
      // What it got before is incomplete: the stream was cut, and the client resumes after its last event.
      let read = "";
      stalled
        .setEncoding("utf8")
        .on("data", (chunk: string) => (read += chunk))
        .on("error", () => {});
      stalled.resume();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stalled.complete).toBe(false);
      expect(read).not.toContain("run_finished");
    });
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After per identity, and per address for clients that drop their cookie", async () => {
    await withApp(
      { TOOLSMITH_RATE_CONVERSATIONS_PER_MINUTE: "5", TOOLSMITH_RATE_MESSAGES_PER_MINUTE: "2" },
      async (limited, client) => {
        const statuses = [];
        for (let i = 0; i < 6; i++)
          statuses.push((await client.fetch("/api/conversations", { method: "POST" })).status);
        expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
        const refused = await client.fetch("/api/conversations", { method: "POST" });
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await errorMessage(refused)).toMatch(/Too many new conversations in a minute; try again in \d+ s/);

        // a fresh identity per request: the address's budget (three identities' worth) runs out all the same
        const freshIdentity = async () =>
          (await fetch(`${limited.url}/api/conversations`)).headers.getSetCookie()[0].split(";")[0];
        // (minted first, so that the posts come as fast as before and the budget cannot refill in between)
        const identities = await Promise.all(Array.from({ length: 13 }, freshIdentity));
        const cookieless = [];
        for (const cookie of identities.slice(0, 12)) {
          cookieless.push(
            (await fetch(`${limited.url}/api/conversations`, { method: "POST", headers: { cookie } })).status,
          );
        }
        expect(cookieless.filter((status) => status === 201)).toHaveLength(10);
        expect(cookieless.at(-1)).toBe(429);
        // a client cannot pick its own address
        const spoofed = await fetch(`${limited.url}/api/conversations`, {
          method: "POST",
          headers: { "x-forwarded-for": "203.0.113.9", cookie: identities[12] },
        });
        expect(spoofed.status).toBe(429);
      },
    );
  });
});
