import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { appSecret } from "@/lib/settings/secret";

/**
 * Who is asking: an anonymous identity per browser, carried in a signed cookie. This is the one place that knows
 * how identities are made and checked; real accounts (an auth library) would replace this module's insides and
 * keep its exports.
 */
/** Over https the cookie carries the __Host- prefix: only this origin, over https, can set or replace it. */
export const identityCookieName = (secure: boolean) => (secure ? "__Host-toolsmith_id" : "toolsmith_id");
const COOKIE_NAMES = new Set([identityCookieName(true), identityCookieName(false)]);
const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

function sign(id: string): string {
  return createHmac("sha256", appSecret()).update(id).digest("base64url");
}

/** The identity a cookie value proves, or undefined for a missing, malformed or tampered one. */
export function verifyIdentity(cookieValue: string | undefined): string | undefined {
  if (!cookieValue) return undefined;
  const dot = cookieValue.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const id = cookieValue.slice(0, dot);
  const given = Buffer.from(cookieValue.slice(dot + 1));
  const expected = Buffer.from(sign(id));
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
}

export function newIdentityCookie(): { id: string; value: string } {
  const id = randomUUID();
  return { id, value: `${id}.${sign(id)}` };
}

export const identityCookieOptions = (secure: boolean) =>
  ({ httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: ONE_YEAR_SECONDS }) as const;

/**
 * The identity a request's Cookie header proves. One parser for the proxy, the routes and the pages: every
 * identity cookie in the header is tried in order and the first valid one wins, so a planted or undecodable
 * duplicate can neither take a visitor's identity away nor make the request fail.
 */
export function identityOf(cookieHeader: string | null): string | undefined {
  for (const part of cookieHeader?.split(";") ?? []) {
    const equals = part.indexOf("=");
    if (equals === -1 || !COOKIE_NAMES.has(part.slice(0, equals).trim())) continue;
    const identity = verifyIdentity(safeDecode(part.slice(equals + 1).trim()));
    if (identity) return identity;
  }
  return undefined;
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
