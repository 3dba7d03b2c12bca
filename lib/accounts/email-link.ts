import { createChallenge, peekChallenge, takeChallenge } from "@/lib/db/queries/auth-challenges";
import { accountByEmail } from "@/lib/db/queries/accounts";
import { publicOrigin } from "@/lib/http/origin";
import { limitSignIn } from "@/lib/http/rate-limit";
import { ApiError } from "@/lib/platform/errors";
import { mayHaveAccount, smtpConfig } from "@/lib/settings/config";
import { smtp } from "@/lib/tools/native/send-email";
import { accountOfVerifiedEmail, requireAccountsOn, signIn } from "./sign-in";
import { nextPath } from "./next-path";

/** How long a link works: long enough to switch to the mailbox, short enough that an old email is worth nothing. */
const LINK_LIFETIME_MS = 15 * 60_000;

interface LinkData {
  email: string;
  next: string;
}

/** Email links need an SMTP relay: without one, the sign-in page does not offer them. */
export const emailLinksOffered = (): boolean => smtpConfig().url !== undefined;

function requireEmailLinks(): void {
  requireAccountsOn();
  if (!emailLinksOffered())
    throw new ApiError(404, "email_sign_in_off", "Sign-in by email link needs an SMTP relay: set SMTP_URL.");
}

/**
 * Email a sign-in link to `email`, if the address may sign in here (it has an account, or its domain may have one).
 * The caller answers the same either way, so nobody learns from it whether an address has an account.
 */
export async function sendSignInLink(request: Request, email: string, next: string | undefined): Promise<void> {
  requireEmailLinks();
  const address = email.toLowerCase();
  limitSignIn(request, { kind: "email_link", email: address });
  if (!mayHaveAccount(address) && !(await accountByEmail(address))) return;
  const secret = await createChallenge("email", { email: address, next: nextPath(next) }, LINK_LIFETIME_MS);
  const link = `${publicOrigin(request)}/signin/email?token=${secret}`;
  try {
    await smtp()!.sendMail({
      from: smtpConfig().from,
      to: address,
      subject: "Your sign-in link for Toolsmith",
      text:
        `Open this link to sign in to Toolsmith as ${address}:\n\n${link}\n\n` +
        "It works once, for 15 minutes. If you did not ask for it, ignore this email: nobody can use it without your inbox.",
    });
  } catch (error) {
    console.error("Could not send a sign-in link:", error);
    throw new ApiError(503, "email_unavailable", "The server could not send email just now; try again in a minute.");
  }
}

/** The address a link signs in as, for the page that asks to confirm; undefined for a used or expired link. */
export async function signInLinkAddress(token: string): Promise<string | undefined> {
  return (await peekChallenge<LinkData>("email", token))?.email;
}

/**
 * Sign this browser in with a link's token: once, within its lifetime, as the address it was sent to. Answers where
 * to go next.
 */
export async function signInWithLink(request: Request, token: string): Promise<string> {
  requireEmailLinks();
  limitSignIn(request, { kind: "sign_in" });
  const link = await takeChallenge<LinkData>("email", token);
  if (!link)
    throw new ApiError(400, "link_invalid", "This sign-in link was used already or has expired; ask for a new one.");
  await signIn(request, await accountOfVerifiedEmail(link.email), "email");
  return link.next;
}
