import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { register } from "@/lib/accounts/passkeys";
import { PasskeyRegistration } from "@/lib/contract/requests";
import { Passkey } from "@/lib/contract/responses";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

export const POST = route(async (request) => {
  const { response, name } = await readJson(request, PasskeyRegistration);
  return answer(Passkey, await register(request, response as unknown as RegistrationResponseJSON, name), 201);
});
