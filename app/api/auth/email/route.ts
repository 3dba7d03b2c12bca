import { EmailLinkRequest } from "@/lib/contract/requests";
import { EmailLinkSent } from "@/lib/contract/responses";
import { sendSignInLink } from "@/lib/accounts/email-link";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

/** The same answer for every address: whether one has an account is nobody's business. */
export const POST = route(async (request) => {
  const { email, next } = await readJson(request, EmailLinkRequest);
  await sendSignInLink(request, email, next);
  return answer(EmailLinkSent, { message: "If this address may sign in here, a link is on its way." }, 202);
});
