/**
 * Where a secret's value meets a tool's request (docs/secrets.md): the code holds a placeholder; the host side of
 * each request (lib/sandbox/fetch-guard.ts) puts the value in for the secret's hosts only, refuses to send it
 * anywhere else, and takes it out of what comes back. Pure, so every rule is tested without a network.
 */
import { randomBytes } from "node:crypto";
import ipaddr from "ipaddr.js";
import { hostWithin } from "./fetch-guard";

/** A secret a call may use, its value opened (lib/secrets/store.ts): held here, never handed to the code. */
export interface CallSecret {
  id: string;
  name: string;
  value: string;
  hosts: readonly string[];
}

/** A request as the code wrote it. */
export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** A request as it goes out: a body of bytes with values in it is its pieces, written in turn, never copied whole. */
export interface FilledRequest extends Omit<OutgoingRequest, "body"> {
  body?: string | Buffer | Buffer[];
}

/** A request that would carry a secret to a host it is not for: nothing was sent. */
export class SecretHostError extends Error {}

interface Sealed extends CallSecret {
  placeholder: string;
  /** What stands for the value in what comes back: the tool sees this, never the value. */
  redaction: string;
  /** The value as a URL carries it, when that differs. */
  encoded?: string;
  /**
   * The value as a reply may carry it back: raw, percent-encoded once and twice, JSON-escaped, in base64, and each
   * Basic credential this call built with it. Each is taken out of what comes back.
   */
  forms: Set<string>;
}

const BASIC = /^(basic\s+)([A-Za-z0-9+/=]+)$/i;

/** One call's secrets: a fresh placeholder each (a leaked one names nothing another call would fill). */
export class SecretBoundary {
  private readonly sealed: Sealed[];
  private readonly used = new Set<string>();

  constructor(secrets: readonly CallSecret[]) {
    this.sealed = secrets.map((secret) => {
      const encoded = encodeURIComponent(secret.value);
      const base64 = Buffer.from(secret.value).toString("base64");
      const forms = new Set([
        secret.value,
        encoded,
        encodeURIComponent(encoded),
        JSON.stringify(secret.value).slice(1, -1),
        base64,
        base64.replace(/=+$/, ""),
        Buffer.from(secret.value).toString("base64url"),
      ]);
      return {
        ...secret,
        placeholder: `TOOLSMITH_SECRET_${secret.name}_${randomBytes(9).toString("hex")}`,
        redaction: `[secret ${secret.name}]`,
        ...(encoded !== secret.value && { encoded }),
        forms,
      };
    });
  }

  /** What the code reads as `secrets`: a placeholder per name. */
  placeholders(): Record<string, string> {
    return Object.fromEntries(this.sealed.map(({ name, placeholder }) => [name, placeholder]));
  }

  /** The ids of the secrets a request carried so far (their "last used"). */
  usedIds(): string[] {
    return this.sealed.filter(({ name }) => this.used.has(name)).map(({ id }) => id);
  }

  /**
   * The request as it goes to `host`: each placeholder in the URL (percent-encoded there), the headers (a Basic
   * credential's base64 too) and the body replaced with its value. Throws SecretHostError, sending nothing, when a
   * placeholder is bound for a host outside its secret's hosts.
   */
  fill(request: OutgoingRequest, host: string): FilledRequest {
    const carried = this.sealed.filter((secret) => carries(request, secret.placeholder));
    const refused = carried.find((secret) => !hostWithin(host, secret.hosts));
    if (refused)
      throw new SecretHostError(
        `This request to ${host} carries the secret ${refused.name}, which may only be sent to ` +
          `${refused.hosts.join(", ")}: it was not sent. Send it to one of those hosts, or ask the person to add ` +
          `${host} to ${refused.name}'s hosts in Settings → Secrets.`,
      );
    if (carried.length === 0) return request;
    if (request.url.startsWith("http:") && !ipaddr.isValid(host))
      throw new SecretHostError(
        `This request carries the secret ${carried[0].name} over plain http, where anyone on the way could read it: ` +
          `it was not sent. Use https://${host}.`,
      );
    for (const secret of carried) this.used.add(secret.name);
    const inText = (text: string) =>
      carried.reduce((filled, secret) => filled.replaceAll(secret.placeholder, secret.value), text);
    const inUrl = carried.reduce(
      (filled, secret) => filled.replaceAll(secret.placeholder, secret.encoded ?? secret.value),
      request.url,
    );
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => {
        const filled = inBasic(value, inText);
        // A credential built with a value is a form of it a server may echo back.
        if (filled !== value) for (const secret of carried) secret.forms.add(filled.replace(BASIC, "$2"));
        return [name, inText(filled)];
      }),
    );
    const body = Buffer.isBuffer(request.body)
      ? carried.reduce<Buffer[]>(
          (pieces, secret) => pieces.flatMap((piece) => splitAt(piece, secret.placeholder, secret.value)),
          [request.body],
        )
      : request.body === undefined
        ? undefined
        : inText(request.body);
    return { url: inUrl, headers, body };
  }

  /** `text` with each value (in each of its forms) as `[secret NAME]`: what a tool may see of a reply or an error. */
  redact(text: string): string {
    let redacted = text;
    for (const secret of this.sealed) {
      for (const form of longestFirst(secret.forms))
        if (redacted.includes(form)) redacted = redacted.replaceAll(form, secret.redaction);
    }
    return redacted;
  }

  /**
   * `bytes` with each value as `[secret NAME]`; the same buffer when none is in it. A reply cut at the size limit
   * (`truncated`) may end inside a value: such an end is dropped too, so not even a value's first characters pass.
   */
  redactBytes(bytes: Buffer, truncated = false): Buffer {
    let redacted = bytes;
    for (const secret of this.sealed)
      for (const form of longestFirst(secret.forms)) {
        const pieces = splitAt(redacted, form, secret.redaction);
        if (pieces.length > 1) redacted = Buffer.concat(pieces);
        if (truncated) redacted = withoutStartOf(redacted, form);
      }
    return redacted;
  }

  /**
   * Refuses a redirect whose next URL carries a value (in any of its forms, however often percent-encoded) to a
   * host outside its secret's: a server that echoes a key into a Location cannot have it carried elsewhere.
   */
  checkRedirect(url: string, host: string): void {
    const revealed = this.sealed.find(
      (secret) => !hostWithin(host, secret.hosts) && decodings(url).some((text) => this.holds(text, secret)),
    );
    if (revealed)
      throw new SecretHostError(
        `A redirect to ${host} would carry the secret ${revealed.name}, which may only be sent to ` +
          `${revealed.hosts.join(", ")}: it was not followed.`,
      );
  }

  private holds(text: string, secret: Sealed): boolean {
    for (const form of secret.forms) if (text.includes(form)) return true;
    return false;
  }
}

/** A credential holds the value's base64: the whole credential is replaced before what is inside it. */
const longestFirst = (forms: Set<string>) => [...forms].sort((a, b) => b.length - a.length);

/** `text` and what percent-decoding it gives, again and again until nothing changes (at most 8 times). */
function decodings(text: string): string[] {
  const found = [text];
  for (let round = 0; round < 8; round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(found.at(-1)!);
    } catch {
      break;
    }
    if (decoded === found.at(-1)) break;
    found.push(decoded);
  }
  return found;
}

function carries(request: OutgoingRequest, placeholder: string): boolean {
  if (request.url.includes(placeholder)) return true;
  if (
    Object.values(request.headers).some((value) => value.includes(placeholder) || inBasic(value).includes(placeholder))
  )
    return true;
  if (request.body === undefined) return false;
  return Buffer.isBuffer(request.body) ? request.body.includes(placeholder) : request.body.includes(placeholder);
}

/**
 * A Basic credential (`Basic base64(user:password)`) decoded, its text filled by `fill`, and encoded again: code
 * that builds one from a placeholder gets the value inside the base64. Any other header value is returned as it is.
 */
function inBasic(value: string, fill?: (text: string) => string): string {
  const match = BASIC.exec(value);
  if (!match) return value;
  const decoded = Buffer.from(match[2], "base64").toString("utf8");
  if (!fill) return decoded;
  const filled = fill(decoded);
  return filled === decoded ? value : `${match[1]}${Buffer.from(filled, "utf8").toString("base64")}`;
}

/** `bytes` without an end that is the start of `form` (a reply cut inside it). */
function withoutStartOf(bytes: Buffer, form: string): Buffer {
  const start = Buffer.from(form, "utf8");
  for (let length = Math.min(start.length - 1, bytes.length); length > 0; length--)
    if (bytes.subarray(bytes.length - length).equals(start.subarray(0, length)))
      return bytes.subarray(0, bytes.length - length);
  return bytes;
}

/** `bytes` as pieces with every `from` replaced by `to` (views of `bytes` between them); `[bytes]` when none is. */
function splitAt(bytes: Buffer, from: string, to: string): Buffer[] {
  let found = bytes.indexOf(from);
  if (found === -1) return [bytes];
  const needle = Buffer.byteLength(from);
  const replacement = Buffer.from(to, "utf8");
  const pieces: Buffer[] = [];
  let start = 0;
  while (found !== -1) {
    pieces.push(bytes.subarray(start, found), replacement);
    start = found + needle;
    found = bytes.indexOf(from, start);
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
