// The production server's Node flags, which server.mjs restarts itself with (process.execve) when they are missing:
// async context frames, so that Next's request stores do not put V8 promise hooks on every promise (the default from
// Node 24), and a heap cap (TOOLSMITH_HEAP_MB), past which garbage piles up under load. docs/performance.md has the
// figures.

import { createServer, STATUS_CODES } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Readable } from "node:stream";
import nextEnv from "@next/env";
import { EVERY_ANSWER_HEADERS } from "./lib/http/answer-headers.mjs";
import { environment } from "./lib/settings/environment.mjs";

const CONTEXT_FRAME = "--experimental-async-context-frame";
const HEAP_LIMIT = "--max-old-space-size";

/**
 * Flags the process lacks: what it was started with counts, from the command line or NODE_OPTIONS.
 * @param {{ env?: Record<string, string | undefined>, execArgv?: string[], version?: string, knownFlags?: { has(flag: string): boolean } }} [runtime]
 * @returns {string[]}
 */
export function missingServerFlags({
  env = process.env,
  execArgv = process.execArgv,
  version = process.versions.node,
  knownFlags = process.allowedNodeEnvironmentFlags,
} = {}) {
  // Node and V8 read "_" as "-"; a "--no-" form is a choice too, which the restart must not override. NODE_OPTIONS
  // is Node's own variable, read here for the flags it gives, not a setting of the app.
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)].map((arg) =>
    arg
      .split("=")[0]
      .replaceAll("_", "-")
      .replace(/^--no-/, "--"),
  );
  const has = (flag) => given.includes(flag);
  const missing = [];
  // From Node 24 on, async context frames are the default.
  if (Number(version.split(".")[0]) < 24 && knownFlags.has(CONTEXT_FRAME) && !has(CONTEXT_FRAME))
    missing.push(CONTEXT_FRAME);
  const heapMb = environment(env).TOOLSMITH_HEAP_MB;
  if (heapMb > 0 && !has(HEAP_LIMIT)) missing.push(`${HEAP_LIMIT}=${heapMb}`);
  return missing;
}

/**
 * The server's settings: the environment with the .env files loaded first, as Next loads them (quietly: Next says
 * which files it loaded when it loads them again). Throws a SettingsError for a value a setting cannot have.
 */
export function loadSettings() {
  nextEnv.loadEnvConfig(process.cwd(), false, { info: () => {}, error: console.error });
  return environment();
}

/**
 * Replace this process with one started with the missing flags; process.execve exists from Node 22.15 on, before
 * which the server runs without them. After loadSettings, so that TOOLSMITH_HEAP_MB in .env counts.
 */
export function restartWithServerFlags() {
  const missing = missingServerFlags();
  if (missing.length > 0 && typeof process.execve === "function") {
    process.execve(
      process.execPath,
      [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)],
      process.env,
    );
  }
}

/** Listening sockets sharing the server's port, where the system lets them (see `listen`). */
const LISTENING_SOCKETS = 8;

/**
 * Serve `handler` over HTTP on `port` (0: a free one) through several sockets sharing it (SO_REUSEPORT, Node 22.12+ on
 * Linux and the BSDs; else one): libuv accepts one connection per socket per turn of a loaded event loop
 * (libuv/libuv#3696). Bound alone first, so that a port in use fails instead of being shared with another server.
 * @param {import("node:http").RequestListener} handler
 * @param {{ port: number, host?: string, sockets?: number }} where
 * @returns {Promise<import("node:http").Server[]>}
 */
export async function listen(handler, { port, host, sockets = LISTENING_SOCKETS }) {
  const alone = await listening(createServer(), { port, host });
  const address = alone.address();
  await new Promise((resolve) => alone.close(resolve));
  const shared = { port: typeof address === "object" && address ? address.port : port, host };
  const serving = () => keepIdleConnections(createServer(handler));
  const sharing = () => listening(serving(), { ...shared, reusePort: true });
  // Where the system cannot share a port, the first socket takes it alone and the second is refused.
  const servers = [await sharing().catch(() => listening(serving(), shared))];
  while (servers.length < sockets) {
    const server = await sharing().catch(() => undefined);
    if (!server) break;
    servers.push(server);
  }
  return servers;
}

/** How long the server tells clients it keeps an idle connection (`Keep-Alive: timeout=5`, Node's own default). */
export const KEEP_ALIVE_HINT_SECONDS = 5;
/**
 * How long it really keeps one: past the longest idle timeout of the proxies in front of it (nginx's and AWS's are
 * 60 s), and far past the hint, so that the client always closes an idle connection first.
 */
export const KEEP_ALIVE_MS = 65_000;

/**
 * Keep idle connections for KEEP_ALIVE_MS while telling clients KEEP_ALIVE_HINT_SECONDS. A server that closes an idle
 * connection races the client's next request on it, which then meets a reset (ECONNRESET, or undici's "other side
 * closed"): clients time the hint by their own clock (undici closes 2 s before it), and an event loop seconds late,
 * theirs or the server's, under load, lets them send past it. (Node 24.6 added keepAliveTimeoutBuffer for this: 1 s.)
 * @template {import("node:http").Server} S
 * @param {S} server
 * @returns {S}
 */
export function keepIdleConnections(server) {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Node would announce the timeout it enforces; a header of the answer's own replaces its hint.
  server.prependListener("request", (_request, response) =>
    response.setHeader("keep-alive", `timeout=${KEEP_ALIVE_HINT_SECONDS}`),
  );
  return server;
}

/**
 * @param {import("node:http").Server} server
 * @param {import("node:net").ListenOptions & { reusePort?: boolean }} options
 * @returns {Promise<import("node:http").Server>}
 */
function listening(server, options) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

const LOOP_TICK_MS = 10;

/**
 * How late this process's event loop runs its timers (every hop of a live event through the process waits that
 * long): `lateness` gives the median, p99 and max in ms since the probe started or was last read, and starts over.
 * For the benchmarks: the server reports it on SIGUSR2, the load generator reads its own.
 * @returns {{ lateness(): { p50: number, p99: number, max: number }, stop(): void }}
 */
export function eventLoopProbe() {
  const histogram = monitorEventLoopDelay({ resolution: LOOP_TICK_MS });
  histogram.enable();
  // The histogram holds the time between ticks: past the tick's own period, that is how late one ran.
  const ms = (nanoseconds) => Math.max(0, Math.round(nanoseconds / 1e5) / 10 - LOOP_TICK_MS);
  return {
    lateness() {
      const lateness = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
      histogram.reset();
      return lateness;
    },
    stop: () => histogram.disable(),
  };
}

/**
 * Disconnect clients that stop reading: a response whose connection has taken none of its waiting bytes for `stallMs`
 * is destroyed, freeing its socket, its buffers and its event stream's place (a slow client still takes some).
 * Returns the function that watches a response, until it closes.
 * @param {number} stallMs
 * @returns {(response: import("node:http").ServerResponse) => void}
 */
export function disconnectStalledClients(stallMs) {
  /** @type {Map<import("node:http").ServerResponse, { written: number, since: number }>} */
  const watched = new Map();
  setInterval(
    () => {
      const now = performance.now();
      for (const [response, progress] of watched) {
        const written = response.socket?.bytesWritten ?? 0;
        if (response.writableLength === 0 || written !== progress.written)
          Object.assign(progress, { written, since: now });
        else if (now - progress.since > stallMs) response.destroy();
      }
    },
    Math.min(stallMs / 2, 1_000),
  ).unref();
  return (response) => {
    watched.set(response, { written: 0, since: performance.now() });
    response.once("close", () => watched.delete(response));
  };
}

/** What Next sets on every answer (next.config.ts) and what proxy.ts adds, for the answers given before Next. */
const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  ...EVERY_ANSWER_HEADERS,
  "cache-control": "no-store",
};
/** lib/http/security-headers.ts's, sent only when the app is served over https. */
const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

/**
 * Whether a request's path cannot be percent-decoded (a "%" without two hex digits after it, escapes that are not
 * UTF-8): Next decodes a dynamic segment with decodeURIComponent, which throws, and answers 500. Its query string is
 * not checked: Next reads it with URLSearchParams, which keeps what it cannot decode.
 * @param {string} url the request line's target, e.g. /c/abc?x=1
 * @returns {boolean}
 */
export function undecodablePath(url) {
  const at = url.indexOf("?");
  try {
    decodeURIComponent(at === -1 ? url : url.slice(0, at));
    return false;
  } catch {
    return true;
  }
}

/**
 * Answer 400 for a request whose path cannot be decoded, before Next, which answers it a bare 500: a JSON error
 * under /api, a line of text elsewhere, with the app's security headers (HSTS when `secure`). Whether it answered.
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 * @param {{ secure: boolean }} options
 * @returns {boolean}
 */
export function refuseUndecodableUrl(request, response, { secure }) {
  if (!undecodablePath(request.url ?? "/")) return false;
  const message =
    `The address's path cannot be decoded: a "%" must start an escape of two hex digits (write "%25" for "%"), ` +
    "and the escaped bytes must be UTF-8.";
  answerBeforeTheApp(request, response, { status: 400, code: "bad_request", message, secure });
  return true;
}

/**
 * Serve at most `max` requests at once, event streams included (a client following a run holds one): a request
 * beyond them is answered 503 with Retry-After before the app reads it, worded as the API words its errors, and its
 * connection stays open for the retry (Node's `maxConnections` would destroy it: a reset). Returns the check of a
 * request, which says whether it answered.
 * @param {number} max
 * @returns {(request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse, options: { secure: boolean }) => boolean}
 */
export function refuseBeyondCapacity(max) {
  let inFlight = 0;
  return (request, response, { secure }) => {
    if (inFlight >= max) {
      const message = `This instance is serving as many requests as it can (${max}); try again in a second.`;
      answerBeforeTheApp(request, response, {
        status: 503,
        code: "unavailable",
        message,
        secure,
        headers: { "retry-after": "1" },
      });
      return true;
    }
    inFlight++;
    // "close" comes once per response, whether it finished or its client left.
    response.once("close", () => inFlight--);
    return false;
  };
}

/**
 * An error answered by the server itself: a JSON error under /api, a line of text elsewhere, with the app's
 * security headers (HSTS when `secure`).
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 * @param {{ status: number, code: string, message: string, secure: boolean, headers?: Record<string, string> }} answer
 */
function answerBeforeTheApp(request, response, { status, code, message, secure, headers = {} }) {
  const api = /^\/api(\/|\?|$)/.test(request.url ?? "");
  const body = api ? JSON.stringify({ error: { code, message } }) : `${status} ${STATUS_CODES[status]}: ${message}\n`;
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    ...(secure && { "strict-transport-security": STRICT_TRANSPORT_SECURITY }),
    ...headers,
    "content-type": api ? "application/json" : "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  response.end(request.method === "HEAD" ? undefined : body);
}

/**
 * Answer a request with one of the app's route handlers without Next's router (server.mjs's direct routes): the
 * handler gets the Request Next would give it (the X-Forwarded-* headers Next fills in from the socket where the
 * request has none, a signal that aborts when the client leaves), and its answer goes out with the headers Next gives
 * every answer. For handlers whose answers are small: the body is sent whole.
 * @param {(request: Request) => Promise<Response>} handler
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 * @param {{ secure: boolean }} options
 */
export async function serveDirectly(handler, request, response, { secure }) {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers))
    for (const each of Array.isArray(value) ? value : [value ?? ""]) headers.append(name, each);
  const host = request.headers.host ?? "localhost";
  const filledIn = {
    "x-forwarded-host": host,
    "x-forwarded-port": String(request.socket.localPort),
    "x-forwarded-proto": "http",
    "x-forwarded-for": request.socket.remoteAddress ?? "",
  };
  for (const [name, value] of Object.entries(filledIn)) if (!headers.has(name)) headers.set(name, value);
  const left = new AbortController();
  response.once("close", () => response.writableFinished || left.abort());
  const protocol = headers.get("x-forwarded-proto") === "https" ? "https" : "http";
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let webRequest;
  try {
    webRequest = new Request(`${protocol}://${host}${request.url}`, {
      method: request.method,
      headers,
      signal: left.signal,
      ...(hasBody && { body: /** @type {ReadableStream} */ (Readable.toWeb(request)), duplex: "half" }),
    });
  } catch {
    const message = `The Host header (${JSON.stringify(host)}) is not a host name.`;
    answerBeforeTheApp(request, response, { status: 400, code: "bad_request", message, secure });
    return;
  }
  let answer;
  let body;
  try {
    answer = await handler(webRequest);
    body = Buffer.from(await answer.arrayBuffer());
  } catch (error) {
    // The path without its query, as the routes' own errors are logged (lib/http/route.ts).
    console.error(`${request.method} ${request.url?.split("?")[0]} failed:`, error);
    const message = "Something went wrong on the server; the error was logged.";
    answerBeforeTheApp(request, response, { status: 500, code: "internal_error", message, secure });
    return;
  }
  for (const [name, value] of answer.headers) if (name !== "set-cookie") response.setHeader(name, value);
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);
  for (const [name, value] of Object.entries(EVERY_ANSWER_HEADERS)) response.setHeader(name, value);
  response.setHeader("content-length", body.byteLength);
  response.writeHead(answer.status);
  response.end(request.method === "HEAD" ? undefined : body);
}
