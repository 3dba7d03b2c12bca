import { SignOut } from "@/lib/contract/requests";
import { revokeEverySession } from "@/lib/accounts/account";
import { requireAccountsOn, signOut } from "@/lib/accounts/sign-in";
import { readJson } from "@/lib/http/body";
import { signedInOf } from "@/lib/http/session";
import { route } from "@/lib/http/route";

/** Signing out a browser that is not signed in changes nothing but its anonymous identity: still a 204. */
export const POST = route(async (request) => {
  const { everywhere } = await readJson(request, SignOut);
  requireAccountsOn();
  const signedIn = await signedInOf(request);
  if (everywhere && signedIn) await revokeEverySession(signedIn.accountId);
  await signOut(request);
  return new Response(null, { status: 204 });
});
