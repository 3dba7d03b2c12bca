// What proxy.ts decides about a request before its route, in pieces that a route the proxy leaves out applies itself
// (`proxyChecked`), so that both refuse the same requests with the same answers and headers.
import { ApiError } from "@/lib/platform/errors";
import { identityOf } from "@/lib/http/identity";
import { isForeignRequest, publicOrigin } from "@/lib/http/origin";
import type { Handler } from "@/lib/http/route";
import { contentSecurityPolicy, STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import { sessionSecretOf, signInRequired } from "@/lib/http/session-cookie";
import { authConfig } from "@/lib/settings/config";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A bearer token is not sent by the browser on its own, so another site cannot borrow it: no CSRF check, no cookie. */
export const hasBearerToken = (request: Request) =>
  request.headers.get("authorization")?.toLowerCase().startsWith("bearer ") ?? false;

/** A write a browser sent from another site's page: 403. */
export function crossSiteRefusal(request: Request): ApiError | undefined {
  if (SAFE_METHODS.has(request.method) || !isForeignRequest(request)) return undefined;
  return new ApiError(
    403,
    "cross_site",
    "This request came from another site; the app only accepts changes from its own pages.",
  );
}

/**
 * An API request the proxy refuses (one without a bearer token): a cross-site write, or a write carrying neither an
 * identity cookie nor a session, since a script that sends none would make things under a new identity that its next
 * call cannot reach. The route checks the session itself (lib/http/access.ts); here its cookie counts as credentials.
 */
export function apiRefusal(request: Request): ApiError | undefined {
  const crossSite = crossSiteRefusal(request);
  if (crossSite || SAFE_METHODS.has(request.method)) return crossSite;
  const cookie = request.headers.get("cookie");
  if (identityOf(cookie) !== undefined || sessionSecretOf(cookie) !== undefined) return undefined;
  if (authConfig().mode === "required") return signInRequired();
  return new ApiError(
    401,
    "no_credentials",
    "This request carries neither an identity cookie nor an API token. Create a token on the Settings page " +
      "(/settings), or with POST /api/tokens from the browser, and send it as `Authorization: Bearer <token>`.",
  );
}

/** A fresh nonce for a response's Content-Security-Policy (Next puts a page's on its scripts). */
export const newNonce = () => Buffer.from(crypto.randomUUID()).toString("base64");

/** The proxy's headers on an answer: the CSP, and HSTS over https. */
export function setAnswerHeaders(headers: Headers, policy: string, secure: boolean): void {
  headers.set("content-security-policy", policy);
  if (secure) headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
}

/**
 * A write route the proxy leaves out (its matcher), checked and answered as the proxy would, without Next's pass
 * through the proxy (about as much as the rest of a tool call's overhead). For writes only: a read without an
 * identity would need the cookie the proxy gives it.
 */
export function proxyChecked<Context>(handler: Handler<Context>): Handler<Context> {
  return async (request, context) => {
    if (hasBearerToken(request)) return handler(request, context);
    const refusal = apiRefusal(request);
    if (refusal) return refusal.toResponse();
    const response = await handler(request, context);
    // Over plain http the proxy lets a JSON answer with a valid identity through untouched.
    if (publicOrigin(request).startsWith("https:"))
      setAnswerHeaders(response.headers, contentSecurityPolicy(newNonce()), true);
    return response;
  };
}
