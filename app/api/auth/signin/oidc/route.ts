import { NextResponse } from "next/server";
import { OidcSignInError, startOidcSignIn } from "@/lib/accounts/oidc";
import { redirectTo } from "@/lib/accounts/redirect";
import { route } from "@/lib/http/route";

/** To the identity provider, with a step this browser alone can finish; /signin?error= when it cannot be reached. */
export const GET = route(async (request) => {
  try {
    const url = await startOidcSignIn(request, new URL(request.url).searchParams.get("next"));
    return NextResponse.redirect(url, 303);
  } catch (error) {
    if (error instanceof OidcSignInError) return redirectTo(request, `/signin?error=${error.code}`);
    throw error;
  }
});
