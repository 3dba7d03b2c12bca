import { registrationOptions } from "@/lib/accounts/passkeys";
import { WebAuthnOptions } from "@/lib/contract/responses";
import { answer, route } from "@/lib/http/route";

export const POST = route(async (request) => answer(WebAuthnOptions, { ...(await registrationOptions(request)) }));
