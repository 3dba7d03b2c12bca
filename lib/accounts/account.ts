import { cache } from "react";
import type { Account, AccountSession } from "@/lib/contract/responses";
import { accountById, deleteAccount, signInMethods, type AccountRow } from "@/lib/db/queries/accounts";
import { listConversations } from "@/lib/db/queries/conversations";
import { deleteAccountSessions, deleteSession, listSessions, type NewSession } from "@/lib/db/queries/sessions";
import { pageIdentity, requireIdentity } from "@/lib/http/access";
import { sessions, signedInOf } from "@/lib/http/session";
import { ApiError, badRequest, conflict, notFound } from "@/lib/platform/errors";
import { authConfig } from "@/lib/settings/config";
import { hasRunningRun } from "@/lib/runs/remote";
import { deleteWithFiles } from "@/lib/files/lifecycle";
import { isAdmin, requireAccountsOn } from "./sign-in";

/**
 * The account a request acts for: its session's, or its API token's when the token belongs to an account. 401 for
 * an anonymous browser or an anonymous identity's token: there is no account to show.
 */
export async function requireAccount(request: Request): Promise<{ account: AccountRow; sessionId?: string }> {
  requireAccountsOn();
  const identity = await requireIdentity(request);
  const account = await accountById(identity);
  if (!account) throw new ApiError(401, "not_signed_in", "This browser is not signed in: sign in first (/signin).");
  const bearer = request.headers.has("authorization");
  return { account, sessionId: bearer ? undefined : (await signedInOf(request))?.sessionId };
}

/** Who a page's visitor is, as the nav shows it: accounts off, or on with the signed-in account's address (or null). */
export type Visitor = { accountsOn: false } | { accountsOn: true; email: string | null; admin: boolean };

/** The signed-in account of a page's visitor, if any; cached per request, since the nav and the page both ask. */
export const pageAccount = cache(async (): Promise<AccountRow | null> => {
  if (authConfig().mode === "anonymous") return null;
  const identity = await pageIdentity();
  return identity === undefined ? null : accountById(identity);
});

export async function pageVisitor(): Promise<Visitor> {
  if (authConfig().mode === "anonymous") return { accountsOn: false };
  const account = await pageAccount();
  return { accountsOn: true, email: account?.email ?? null, admin: account !== null && isAdmin(account) };
}

/** The account as GET /api/account answers it. */
export async function accountView(account: AccountRow): Promise<Account> {
  const methods = await signInMethods(account.id);
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    methods: { ...methods, email: true },
    admin: isAdmin(account),
    createdAt: account.createdAt.toISOString(),
  };
}

/** The account's signed-in browsers, newest use first, the asking one marked. */
export async function sessionsView(accountId: string, currentId: string | undefined): Promise<AccountSession[]> {
  return (await listSessions(accountId)).map((session) => ({
    ...session,
    method: session.method as NewSession["method"],
    createdAt: session.createdAt.toISOString(),
    lastSeenAt: session.lastSeenAt.toISOString(),
    current: session.id === currentId,
  }));
}

/** Revoke one of the account's sessions, on every instance at its next request; 404 for another's. */
export async function revokeSession(accountId: string, sessionId: string): Promise<void> {
  if (!(await deleteSession(sessionId, accountId))) throw notFound("The session");
  await sessions.forget(`session ${sessionId}`);
}

/** "Sign out everywhere": every session of the account ends. */
export async function revokeEverySession(accountId: string): Promise<void> {
  await deleteAccountSessions(accountId);
  await sessions.forget(`account ${accountId}`);
}

/**
 * Delete the account and everything it owns, once its owner typed its address; not while one of its runs is going
 * (as for a conversation: stop it first). Its sessions and tokens stop working at once, on every instance.
 */
export async function deleteWholeAccount(account: AccountRow, confirm: string): Promise<void> {
  if (confirm.trim().toLowerCase() !== account.email)
    throw badRequest(`To delete the account, type its email address (${account.email}) as "confirm".`);
  const conversations = await listConversations(account.id, Number.MAX_SAFE_INTEGER);
  for (const { id } of conversations)
    if (await hasRunningRun(id))
      throw conflict("A run of one of your conversations is active; stop it before deleting the account.");
  await deleteWithFiles(
    conversations.map(({ id }) => id),
    () => deleteAccount(account.id),
  );
  await sessions.forget(`account ${account.id}`);
}
