import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { signInWithPasskey } from "@/lib/accounts/passkeys";
import { PasskeySignIn } from "@/lib/contract/requests";
import { SignedInAccount } from "@/lib/contract/responses";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

export const POST = route(async (request) => {
  const { response } = await readJson(request, PasskeySignIn);
  const account = await signInWithPasskey(request, response as unknown as AuthenticationResponseJSON);
  return answer(SignedInAccount, { id: account.id, email: account.email, name: account.name });
});
