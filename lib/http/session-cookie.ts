import { ApiError } from "@/lib/platform/errors";

/**
 * A signed-in browser's session cookie (lib/accounts/ signs people in): a random secret whose hash is the session's
 * row. Over https it carries the __Host- prefix, as the identity cookie does.
 */
export const sessionCookieName = (secure: boolean) => (secure ? "__Host-toolsmith_session" : "toolsmith_session");
const COOKIE_NAMES = new Set([sessionCookieName(true), sessionCookieName(false)]);
/** What a request without a session or an API token hears when accounts are required (TOOLSMITH_AUTH=required). */
export const signInRequired = () =>
  new ApiError(
    401,
    "sign_in_required",
    "Sign in first (/signin), or send an API token as `Authorization: Bearer <token>`.",
  );

/** A session unused this long is over: its browser signs in again. */
export const IDLE_MS = 90 * 24 * 60 * 60 * 1000;

export const sessionCookieOptions = (secure: boolean) =>
  ({ httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: IDLE_MS / 1000 }) as const;

/** The session cookie's secret in a Cookie header (the first of the names that has a value), if any. */
export function sessionSecretOf(cookieHeader: string | null): string | undefined {
  for (const part of cookieHeader?.split(";") ?? []) {
    const equals = part.indexOf("=");
    if (equals === -1 || !COOKIE_NAMES.has(part.slice(0, equals).trim())) continue;
    const value = part.slice(equals + 1).trim();
    if (/^[\w-]{43}$/.test(value)) return value;
  }
  return undefined;
}
