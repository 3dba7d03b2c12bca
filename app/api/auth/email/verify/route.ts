import { EmailLinkUse } from "@/lib/contract/requests";
import { SignedIn } from "@/lib/contract/responses";
import { signInWithLink } from "@/lib/accounts/email-link";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

export const POST = route(async (request) => {
  const { token } = await readJson(request, EmailLinkUse);
  return answer(SignedIn, { next: await signInWithLink(request, token) });
});
