import { NextResponse, type NextRequest } from "next/server";
import { isForeignRequest, publicOrigin } from "@/lib/http/origin";
import { contentSecurityPolicy } from "@/lib/http/security-headers";
import { identityCookieName, identityCookieOptions, identityOf, newIdentityCookie } from "@/lib/http/identity";
import { apiRefusal, crossSiteRefusal, hasBearerToken, newNonce, setAnswerHeaders } from "@/lib/http/proxy-checks";
import { sessionSecretOf } from "@/lib/http/session-cookie";
import { authConfig } from "@/lib/settings/config";

/** Pages a stranger may open when accounts are required: signing in, and what a share link opens. */
const OPEN_PAGES = /^\/(signin|s|docs)(\/|$)/;

/**
 * Every request passes here first: a cross-site write is refused (403), and so is an API write without credentials
 * (401); any other request without a valid identity gets one, on the request and the response, unless another site
 * sent it; every response gets a CSP with a fresh nonce. The checks are lib/http/proxy-checks.ts's, which the routes
 * the matcher leaves out apply themselves.
 */
export function proxy(request: NextRequest) {
  // A bearer token is checked by the route, and takes no cookie.
  if (hasBearerToken(request)) return NextResponse.next();
  const page = !request.nextUrl.pathname.startsWith("/api/");
  const refusal = page ? crossSiteRefusal(request) : apiRefusal(request);
  if (refusal) return refusal.toResponse();

  const cookie = request.headers.get("cookie");
  const signedIn = sessionSecretOf(cookie) !== undefined;
  const required = authConfig().mode === "required";
  if (required && page && !signedIn && !OPEN_PAGES.test(request.nextUrl.pathname)) {
    const signIn = new URL("/signin", publicOrigin(request));
    signIn.searchParams.set("next", `${request.nextUrl.pathname}${request.nextUrl.search}`);
    return NextResponse.redirect(signIn, 307);
  }
  // The session is checked by the route (lib/http/access.ts); here its cookie only counts as credentials.
  const identified = identityOf(cookie) !== undefined || signedIn;
  // Accounts required: an anonymous identity would own nothing, so none is made.
  const minted = identified || isForeignRequest(request) || required ? undefined : newIdentityCookie();
  const secure = publicOrigin(request).startsWith("https:");
  // The JSON API needs no script nonce: with a valid identity, the request goes on untouched (the hot path).
  if (!page && !minted && !secure) return NextResponse.next();

  const headers = new Headers(request.headers);
  const name = identityCookieName(secure);
  if (minted)
    headers.set("cookie", [request.headers.get("cookie"), `${name}=${minted.value}`].filter(Boolean).join("; "));
  const nonce = newNonce();
  const policy = contentSecurityPolicy(nonce);
  if (page) {
    // Next reads the nonce for its scripts from the request's policy header.
    headers.set("content-security-policy", policy);
    headers.set("x-nonce", nonce);
  }

  const response = NextResponse.next({ request: { headers } });
  setAnswerHeaders(response.headers, policy, secure);
  if (minted) response.cookies.set(name, minted.value, identityCookieOptions(secure));
  return response;
}

export const config = {
  // The MCP endpoint checks Host, Origin and its API token itself (lib/mcp/access.ts), and never takes a cookie;
  // nor does SEAT's API (/seat, lib/seat/http.ts), which takes only its token.
  // Each ends at a path segment: /api/mcp-servers is the app's own route, and goes through here.
  // The files' routes check a cross-site write themselves (lib/http/access.ts refuseForeignWrite): Next would hold
  // an upload's body here whole (and cut it at 10 MB), and a download's headers are its own (its sandbox CSP).
  // A tool call through the API checks itself as this does (proxyChecked): Next's pass through here doubled its cost.
  matcher: [
    "/((?!_next/static|_next/image|favicon.ico|api/health(?:/|$)|api/mcp(?:/|$)|seat(?:/|$)|api/files/|api/conversations/[^/]+/files(?:/|$)|api/share/[^/]+/files/|api/tools/[^/]+/execute(?:/|$)).*)",
  ],
};
