import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/client";
import ipaddr from "ipaddr.js";
import { checkLiteral, checkUrl, isPublicAddress, pinnedLookup } from "@/lib/sandbox/fetch-guard";

/** Where a server may be: `isAllowed` for each address a host resolves to, `exempt` for names the guard refuses. */
export interface AddressRule {
  isAllowed: (address: string, host: string) => boolean;
  exempt: (host: string) => boolean;
}

/** The operator's servers may be anywhere. */
export const ANYWHERE: AddressRule = { isAllowed: () => true, exempt: () => true };

/**
 * A person's server: public addresses, or the hosts, addresses and CIDR ranges of TOOLSMITH_MCP_PRIVATE_HOSTS (an
 * intranet server the operator allows). A listed name may resolve to anything: the operator vouches for its DNS.
 */
export function personalServerRule(privateHosts: readonly string[]): AddressRule {
  const names = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of privateHosts) {
    if (ipaddr.isValidCIDR(entry)) ranges.push(ipaddr.parseCIDR(entry));
    else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else names.add(entry.toLowerCase().replace(/\.$/, ""));
  }
  const listedAddress = (address: string) => {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  };
  return {
    isAllowed: (address, host) => isPublicAddress(address) || names.has(host) || listedAddress(address),
    exempt: (host) => names.has(host) || listedAddress(host),
  };
}

/** A server's message larger than the limit: the connection is closed with this as its reason. */
export class MessageTooLarge extends Error {}

export interface ServerFetch {
  fetch: FetchLike;
  /** Ends the kept-alive sockets. */
  close(): void;
}

/**
 * The fetch the SDK's Streamable HTTP transport uses for one server: every connection checked and pinned by the
 * address rule (the lookup that checks is the one that dials, so DNS rebinding cannot switch it; the SDK sends each
 * redirect hop through here again), sockets kept alive, and each message read counted on the wire: a JSON body, or
 * an SSE event, over `maxMessageBytes` errors the body and calls `onTooLarge` instead of being read into memory.
 */
export function serverFetch(
  rule: AddressRule,
  maxMessageBytes: number,
  onTooLarge: (error: MessageTooLarge) => void,
  resolve?: (hostname: string) => Promise<string[]>,
): ServerFetch {
  const lookup = pinnedLookup(rule.isAllowed, resolve);
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  const fetch: FetchLike = async (input, init = {}) => {
    const url = checkUrl(String(input), undefined, rule.exempt);
    checkLiteral(url, rule.isAllowed);
    const method = (init.method ?? "GET").toUpperCase();
    const body = init.body == null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    const headers = Object.fromEntries(new Headers(init.headers));
    const reply = await new Promise<http.IncomingMessage>((resolveReply, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const request = client.request(
        url,
        { method, headers, lookup, agent: agents[url.protocol as "http:"], signal: init.signal ?? undefined },
        resolveReply,
      );
      request.on("error", reject);
      request.end(body);
    });
    const status = reply.statusCode ?? 502;
    const replyHeaders = new Headers();
    for (const [name, value] of Object.entries(reply.headers))
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
        replyHeaders.append(name, item);
    let response: Response;
    if ([204, 205, 304].includes(status) || method === "HEAD") {
      reply.resume();
      response = new Response(null, { status, headers: replyHeaders });
    } else {
      const sse = (replyHeaders.get("content-type") ?? "").includes("text/event-stream");
      const counted = (Readable.toWeb(reply) as ReadableStream<Uint8Array>).pipeThrough(
        messageCap(maxMessageBytes, sse, (error) => {
          reply.destroy();
          onTooLarge(error);
        }),
      );
      response = new Response(counted, { status, statusText: reply.statusMessage, headers: replyHeaders });
    }
    // The SDK reads where a redirect came from.
    Object.defineProperty(response, "url", { value: url.href });
    return response;
  };
  return {
    fetch,
    close: () => Object.values(agents).forEach((agent) => agent.destroy()),
  };
}

/**
 * Counts the bytes of one message as they pass: the whole body, or for an event stream each event (reset at a blank
 * line), so a long-lived stream of small notifications is never cut, and one huge event is.
 */
export function messageCap(
  maxBytes: number,
  sse: boolean,
  onTooLarge: (error: MessageTooLarge) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  // The last two bytes of the previous chunk, for a boundary split across chunks.
  let previous = [-1, -1];
  return new TransformStream({
    transform(chunk, controller) {
      const add = (bytes: number) => {
        size += bytes;
        if (size <= maxBytes) return true;
        const error = new MessageTooLarge(`sent a message over the ${formatBytes(maxBytes)} limit`);
        controller.error(error);
        onTooLarge(error);
        return false;
      };
      let start = 0;
      if (sse) {
        const byteAt = (index: number) => (index >= 0 ? chunk[index] : previous[2 + index]);
        for (let index = chunk.indexOf(0x0a); index >= 0; index = chunk.indexOf(0x0a, index + 1)) {
          const before = byteAt(index - 1);
          if (before !== 0x0a && !(before === 0x0d && byteAt(index - 2) === 0x0a)) continue;
          if (!add(index + 1 - start)) return;
          size = 0;
          start = index + 1;
        }
        previous = [byteAt(chunk.length - 2), byteAt(chunk.length - 1)];
      }
      if (add(chunk.length - start)) controller.enqueue(chunk);
    },
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, "")} MB`;
}
