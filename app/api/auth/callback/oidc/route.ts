import { finishOidcSignIn, OidcSignInError } from "@/lib/accounts/oidc";
import { redirectTo } from "@/lib/accounts/redirect";
import { route } from "@/lib/http/route";

/** The provider sends the browser back here: signed in and on to `next`, or to /signin?error= saying why not. */
export const GET = route(async (request) => {
  try {
    return redirectTo(request, await finishOidcSignIn(request));
  } catch (error) {
    if (error instanceof OidcSignInError) return redirectTo(request, `/signin?error=${error.code}`);
    throw error;
  }
});
