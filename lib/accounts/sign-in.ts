import { cookies } from "next/headers";
import { accountForEmail, accountByEmail, moveOwnership, type AccountRow } from "@/lib/db/queries/accounts";
import { createSession, deleteSession, type NewSession } from "@/lib/db/queries/sessions";
import { identityCookieName, identityCookieOptions, identityOf, newIdentityCookie } from "@/lib/http/identity";
import { publicOrigin } from "@/lib/http/origin";
import { clientAddress } from "@/lib/http/rate-limit";
import { sessionCookieName, sessionCookieOptions } from "@/lib/http/session-cookie";
import { sessions, signedInOf } from "@/lib/http/session";
import { ApiError } from "@/lib/platform/errors";
import { authConfig, mayHaveAccount } from "@/lib/settings/config";

/** Accounts are off (TOOLSMITH_AUTH=anonymous): every sign-in route answers this. */
export function requireAccountsOn(): void {
  if (authConfig().mode === "anonymous")
    throw new ApiError(404, "accounts_off", "Accounts are off on this server (TOOLSMITH_AUTH=anonymous).");
}

export const isAdmin = (account: Pick<AccountRow, "email">): boolean =>
  authConfig().adminEmails.includes(account.email);

/**
 * The account of an address its owner has just proven (an email link, or a provider that says it verified it):
 * the existing one, or a new one if the address may have an account. One address, one account, whichever way in.
 */
export async function accountOfVerifiedEmail(email: string, name?: string): Promise<AccountRow> {
  const existing = await accountByEmail(email);
  if (existing) return existing;
  if (!mayHaveAccount(email))
    throw new ApiError(
      403,
      "domain_not_allowed",
      `Accounts on this server are for addresses at ${authConfig().allowedDomains.join(", ")}.`,
    );
  return accountForEmail(email, name);
}

/**
 * Sign this browser in to `account`: what its anonymous identity made becomes the account's, any session it had
 * ends and a new one starts (a new secret, so a session id planted before sign-in is worth nothing), and it gets a
 * fresh anonymous identity for when it signs out. Sets the cookies on the route's response.
 */
export async function signIn(request: Request, account: AccountRow, method: NewSession["method"]): Promise<void> {
  const anonymous = identityOf(request.headers.get("cookie"));
  if (anonymous && anonymous !== account.id) await moveOwnership(anonymous, account.id);
  await endCurrentSession(request);
  const session = await createSession({
    accountId: account.id,
    method,
    userAgent: request.headers.get("user-agent") ?? "",
    ip: clientAddress(request),
  });
  const secure = publicOrigin(request).startsWith("https:");
  const jar = await cookies();
  jar.set(sessionCookieName(secure), session.secret, sessionCookieOptions(secure));
  const fresh = newIdentityCookie();
  jar.set(identityCookieName(secure), fresh.value, identityCookieOptions(secure));
}

/** Sign this browser out: its session ends on every instance, and it continues as a new anonymous identity. */
export async function signOut(request: Request): Promise<void> {
  await endCurrentSession(request);
  const secure = publicOrigin(request).startsWith("https:");
  const jar = await cookies();
  jar.delete({ name: sessionCookieName(secure), path: "/", secure, httpOnly: true, sameSite: "lax" });
  const fresh = newIdentityCookie();
  jar.set(identityCookieName(secure), fresh.value, identityCookieOptions(secure));
}

async function endCurrentSession(request: Request): Promise<void> {
  const current = await signedInOf(request);
  if (!current) return;
  await deleteSession(current.sessionId, current.accountId);
  await sessions.forget(`session ${current.sessionId}`);
}
