import { NextResponse, type NextRequest } from "next/server";
import { ApiError } from "@/lib/platform/errors";
import { isForeignRequest, publicOrigin } from "@/lib/http/origin";
import { contentSecurityPolicy, STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import { identityCookieName, identityCookieOptions, identityOf, newIdentityCookie } from "@/lib/http/identity";
import { sessionSecretOf, signInRequired } from "@/lib/http/session-cookie";
import { authConfig } from "@/lib/settings/config";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Pages a stranger may open when accounts are required: signing in, and what a share link opens. */
const OPEN_PAGES = /^\/(signin|s|docs)(\/|$)/;

/**
 * Every request passes here first: a cross-site write is refused (403), and so is an API write without credentials
 * (401); any other request without a valid identity gets one, on the request and the response, unless another site
 * sent it; every response gets a CSP with a fresh nonce.
 */
export function proxy(request: NextRequest) {
  // A bearer token is not sent by the browser on its own, so another site cannot borrow it: no CSRF check, and
  // no cookie either (the route checks the token).
  if (request.headers.get("authorization")?.toLowerCase().startsWith("bearer ")) return NextResponse.next();
  const foreign = isForeignRequest(request);
  if (foreign && !SAFE_METHODS.has(request.method)) {
    return new ApiError(
      403,
      "cross_site",
      "This request came from another site; the app only accepts changes from its own pages.",
    ).toResponse();
  }

  const page = !request.nextUrl.pathname.startsWith("/api/");
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
  // A script that sends no credentials would make things under a new identity that its next call cannot reach.
  if (!page && !identified && !SAFE_METHODS.has(request.method)) {
    if (required) return signInRequired().toResponse();
    return new ApiError(
      401,
      "no_credentials",
      "This request carries neither an identity cookie nor an API token. Create a token on the Settings page " +
        "(/settings), or with POST /api/tokens from the browser, and send it as `Authorization: Bearer <token>`.",
    ).toResponse();
  }
  // Accounts required: an anonymous identity would own nothing, so none is made.
  const minted = identified || foreign || required ? undefined : newIdentityCookie();
  const secure = publicOrigin(request).startsWith("https:");
  // The JSON API needs no script nonce: with a valid identity, the request goes on untouched (the hot path).
  if (!page && !minted && !secure) return NextResponse.next();

  const headers = new Headers(request.headers);
  const name = identityCookieName(secure);
  if (minted)
    headers.set("cookie", [request.headers.get("cookie"), `${name}=${minted.value}`].filter(Boolean).join("; "));
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = contentSecurityPolicy(nonce);
  if (page) {
    // Next reads the nonce for its scripts from the request's policy header.
    headers.set("content-security-policy", policy);
    headers.set("x-nonce", nonce);
  }

  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  if (secure) response.headers.set("strict-transport-security", STRICT_TRANSPORT_SECURITY);
  if (minted) response.cookies.set(name, minted.value, identityCookieOptions(secure));
  return response;
}

export const config = {
  // The MCP endpoint checks Host, Origin and its API token itself (lib/mcp/access.ts), and never takes a cookie;
  // nor does SEAT's API (/seat, lib/seat/http.ts), which takes only its token.
  // Each ends at a path segment: /api/mcp-servers is the app's own route, and goes through here.
  // The files' routes check a cross-site write themselves (lib/http/access.ts refuseForeignWrite): Next would hold
  // an upload's body here whole (and cut it at 10 MB), and a download's headers are its own (its sandbox CSP).
  matcher: [
    "/((?!_next/static|_next/image|favicon.ico|api/health(?:/|$)|api/mcp(?:/|$)|seat(?:/|$)|api/files/|api/conversations/[^/]+/files(?:/|$)|api/share/[^/]+/files/).*)",
  ],
};
