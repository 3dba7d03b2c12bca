import http from "node:http";
import https from "node:https";
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import type { FetchLimits } from "@/lib/settings/config";
import type { FilledRequest, SecretBoundary } from "./secret-boundary";
import type { FetchRequest } from "./pool";

/** Host names refused before any lookup: they name this machine or a cloud metadata service. */
const BLOCKED_HOSTNAMES = ["localhost", "metadata", "metadata.google.internal", "instance-data", "kubernetes.default"];
const BLOCKED_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];
const ALLOWED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);
/** Headers a tool (or a person's MCP server entry) may not set: they would forge the connection, not describe the request. */
export const DROPPED_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "upgrade",
  "proxy-authorization",
  "te",
  "trailer",
]);

export interface FetchReply {
  status: number;
  url: string;
  headers: Record<string, string>;
  /** The body as UTF-8 text, and as it came (Python's requests and urllib read bytes). */
  body: string;
  bytes: Buffer;
  truncated: boolean;
}

export interface GuardOptions {
  limits: FetchLimits;
  /** Injected in tests; the system resolver otherwise. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Injected in tests; `isPublicAddress` otherwise. */
  isAllowed?: (address: string, hostname: string) => boolean;
  /** Aborts the request, e.g. when the call that made it ends. */
  signal?: AbortSignal;
  /** A further rule on host names (a profile's allowed or blocked domains), checked on every hop. */
  allowHost?: (host: string) => string | undefined;
  /** The call's secrets: filled in for their hosts on every hop, and taken out of the reply (lib/secrets/). */
  secrets?: SecretBoundary;
}

/** A profile's domains, with the native tools spec's meaning: each is a host and its subdomains. */
export interface DomainRules {
  allowed_domains?: readonly string[];
  blocked_domains?: readonly string[];
}

/** `host` is one of `domains` or a subdomain of one (`*.example.com` means the same as `example.com`). */
export function hostWithin(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => {
    const normalized = domain
      .toLowerCase()
      .replace(/^\*?\./, "")
      .replace(/\.$/, "");
    return host === normalized || host.endsWith(`.${normalized}`);
  });
}

/** Who a domain rule is for, in its refusals: the settings it is part of, and what they let reach a host. */
export interface RuleOwner {
  settings: string;
  reacher: string;
}

/** The rule for a host: why it is refused, or undefined when it may be reached. */
export function domainRefusal(host: string, { allowed_domains, blocked_domains }: DomainRules, owner: RuleOwner) {
  if (blocked_domains && hostWithin(host, blocked_domains))
    return `${host} is blocked by this profile's ${owner.settings}.`;
  if (allowed_domains && !hostWithin(host, allowed_domains))
    return `${host} is not among the domains this profile allows ${owner.reacher} to reach (${allowed_domains.join(", ")}).`;
  return undefined;
}

/**
 * The guard's options for a profile's domains. An IP literal listed in allowed_domains may be reached even when it
 * is not public: the operator named that service (a model cannot).
 */
export function domainGuard(rules: DomainRules, owner: RuleOwner): Pick<GuardOptions, "allowHost" | "isAllowed"> {
  const canonical = (address: string) => ipaddr.process(address).toString();
  const listed = new Set((rules.allowed_domains ?? []).filter((entry) => ipaddr.isValid(entry)).map(canonical));
  return {
    allowHost: (host) => domainRefusal(host, rules, owner),
    isAllowed: (address) => isPublicAddress(address) || (ipaddr.isValid(address) && listed.has(canonical(address))),
  };
}

/** The owners of the domain rules: a tool's settings, and the profile's `network:` for the code of tools. */
export const toolRules = (tool: string): RuleOwner => ({ settings: `${tool} settings`, reacher: tool });
export const CODE_NETWORK: RuleOwner = { settings: "network settings", reacher: "the code of tools" };

export class FetchBlockedError extends Error {}
/** A host the rules refuse (not public, or outside a profile's domains): a refusal by policy, not a failure. */
export class HostRefusedError extends FetchBlockedError {}

/** Only globally routable unicast addresses: no loopback, private, link-local, metadata, NAT64, 6to4, Teredo... */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const ipv6 = parsed as ipaddr.IPv6;
    // IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291) count as unicast for ipaddr.js; some stacks
    // still map them to IPv4, so none is public.
    if (ipv6.parts.slice(0, 6).every((part) => part === 0)) return false;
    if (ipv6.isIPv4MappedAddress()) parsed = ipv6.toIPv4Address();
  }
  return parsed.range() === "unicast";
}

/**
 * An http(s) URL without credentials whose host is not one that names this machine or a metadata service (unless
 * `exempt` says the operator allowed it), and that `allowHost` does not refuse.
 */
export function checkUrl(raw: string, allowHost?: GuardOptions["allowHost"], exempt?: (host: string) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchBlockedError(`Invalid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new FetchBlockedError(`Only http and https URLs are allowed (got ${url.protocol}).`);
  if (url.username || url.password) throw new FetchBlockedError("URLs with credentials are not allowed.");
  const host = hostOf(url);
  const blocked = BLOCKED_HOSTNAMES.includes(host) || BLOCKED_SUFFIXES.some((suffix) => host.endsWith(suffix));
  if (blocked && !exempt?.(host)) {
    throw new HostRefusedError(`Host ${host} is not allowed: tools may only reach public internet hosts.`);
  }
  const refusal = allowHost?.(host);
  if (refusal) throw new HostRefusedError(refusal);
  return url;
}

/** A URL's host as the rules compare it: lower-case, without an IPv6 literal's brackets or a trailing dot. */
const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");

/**
 * fetch for tool code: http(s) to public addresses only, checked on every connection (so DNS rebinding and
 * redirects to private hosts fail too), with a timeout and a cap on the response size.
 */
export async function guardedFetch(request: FetchRequest, options: GuardOptions): Promise<FetchReply> {
  const { limits } = options;
  const method = (request.method ?? "GET").toUpperCase();
  if (!ALLOWED_METHODS.has(method)) throw new FetchBlockedError(`Method ${method} is not allowed.`);
  const body = request.body ?? undefined;
  if (body !== undefined && Buffer.byteLength(body) > limits.maxRequestBytes) {
    throw new FetchBlockedError(`Request body is over the ${limits.maxRequestBytes} byte limit.`);
  }
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {})
      .filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase()))
      .map(([name, value]) => [name, String(value).slice(0, 8192)]),
  );

  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const { secrets } = options;
  try {
    let url = checkUrl(request.url, options.allowHost);
    for (let redirects = 0; ; redirects++) {
      const outgoing = secrets ? filled(secrets, url, headers, body) : { url, headers, body };
      const response = await send(outgoing.url, method, outgoing.headers, outgoing.body, options, signal);
      const location = response.headers.location;
      if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
        response.resume();
        if (redirects >= limits.maxRedirects)
          throw new FetchBlockedError(`More than ${limits.maxRedirects} redirects.`);
        url = checkUrl(new URL(location, url).toString(), options.allowHost);
        secrets?.checkRedirect(url.toString(), hostOf(url));
        continue;
      }
      const reply = await readReply(response, url, limits.maxResponseBytes);
      return secrets ? redacted(secrets, reply) : reply;
    }
  } catch (error) {
    if (timeout.aborted) throw new Error(`fetch timed out after ${limits.timeoutMs} ms.`);
    if (signal.aborted) throw new Error("fetch was cancelled.");
    if (secrets && error instanceof Error) error.message = secrets.redact(error.message);
    throw error;
  }
}

/** One hop of a request with the call's secrets filled in for its host (or refused for it). */
function filled(secrets: SecretBoundary, url: URL, headers: Record<string, string>, body?: string | Buffer): Hop {
  const outgoing = secrets.fill({ url: url.toString(), headers, body }, hostOf(url));
  const filledUrl = new URL(outgoing.url);
  // A value is percent-encoded into the URL, so it cannot move the request to another host; checked all the same.
  if (hostOf(filledUrl) !== hostOf(url)) throw new HostRefusedError("A secret may not change the request's host.");
  return { ...outgoing, url: filledUrl };
}

/** A reply without the call's secrets' values in it: its body and bytes, headers and URL. */
function redacted(secrets: SecretBoundary, reply: FetchReply): FetchReply {
  const bytes = secrets.redactBytes(reply.bytes, reply.truncated);
  return {
    ...reply,
    url: secrets.redact(reply.url),
    headers: Object.fromEntries(Object.entries(reply.headers).map(([name, value]) => [name, secrets.redact(value)])),
    ...(bytes !== reply.bytes && { bytes, body: bytes.toString("utf8") }),
  };
}

/** One hop's request as it is sent. */
interface Hop {
  url: URL;
  headers: Record<string, string>;
  body?: FilledRequest["body"];
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Hop["body"],
  options: GuardOptions,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const isAllowed = options.isAllowed ?? isPublicAddress;
  const resolve = options.resolve ?? systemResolve;
  try {
    checkLiteral(url, isAllowed);
  } catch (error) {
    return Promise.reject(error);
  }
  const lookup = pinnedLookup(isAllowed, resolve);
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolvePromise, reject) => {
    const req = client.request(
      url,
      { method, headers: { "user-agent": "Toolsmith-Tool/1.0", ...headers }, lookup, signal, agent: false },
      resolvePromise,
    );
    req.on("error", reject);
    if (Array.isArray(body)) for (const piece of body) req.write(piece);
    req.end(Array.isArray(body) ? undefined : body);
  });
}

/** Node dials an IP literal without calling `lookup`, so a URL's literal address is checked before. */
export function checkLiteral(url: URL, isAllowed: (address: string, hostname: string) => boolean): void {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(literal) && !isAllowed(literal, literal))
    throw new HostRefusedError(`${literal} is not a public address.`);
}

/**
 * A `lookup` for Node's sockets that refuses a name resolving to any address `isAllowed` refuses: every connection
 * goes through it, so the address that is checked is the address that is dialled (no DNS rebinding in between).
 * Node dials an IP literal without calling it: check literals before.
 */
export function pinnedLookup(
  isAllowed: (address: string, hostname: string) => boolean,
  resolve: (hostname: string) => Promise<string[]> = systemResolve,
): LookupFunction {
  return (host, lookupOptions, callback) => {
    const addresses = ipaddr.isValid(host) ? Promise.resolve([host]) : resolve(host);
    addresses.then(
      (list) => {
        const blocked = list.find((address) => !isAllowed(address, host));
        if (list.length === 0) return callback(new Error(`Cannot resolve ${host}.`), "", 4);
        if (blocked)
          return callback(
            new HostRefusedError(`${host} resolves to ${blocked}, which is not a public address.`),
            "",
            4,
          );
        const entries = list.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
        if (lookupOptions.all) return (callback as unknown as (e: null, all: typeof entries) => void)(null, entries);
        callback(null, entries[0].address, entries[0].family);
      },
      (error: Error) => callback(error, "", 4),
    );
  };
}

export async function systemResolve(hostname: string): Promise<string[]> {
  const results = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return results.map((result) => result.address);
}

async function readReply(response: http.IncomingMessage, url: URL, maxBytes: number): Promise<FetchReply> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      truncated = true;
      response.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const bytes = Buffer.concat(chunks);
  return {
    status: response.statusCode ?? 0,
    url: url.toString(),
    headers,
    body: bytes.toString("utf8"),
    bytes,
    truncated,
  };
}
