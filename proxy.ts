import { NextResponse, type NextRequest } from "next/server";
import { IDENTITY_COOKIE, identityCookieOptions, newIdentityCookie, verifyIdentity } from "@/lib/identity";

/**
 * Every page and API request gets an identity: a request without a valid one (none, or tampered with) gets a new
 * one, on the response for the browser and on the request itself so that this very request is served as it.
 */
export function proxy(request: NextRequest) {
  if (verifyIdentity(request.cookies.get(IDENTITY_COOKIE)?.value)) return NextResponse.next();
  const { value } = newIdentityCookie();
  request.cookies.set(IDENTITY_COOKIE, value);
  const response = NextResponse.next({ request: { headers: request.headers } });
  const secure = request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  response.cookies.set(IDENTITY_COOKIE, value, identityCookieOptions(secure));
  return response;
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|api/health).*)"],
};
