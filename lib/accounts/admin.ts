import { accountById, setAccountProfiles, type AccountRow } from "@/lib/db/queries/accounts";
import { identityOfBrowser, requireIdentity } from "@/lib/http/access";
import { ApiError, badRequest, notFound } from "@/lib/platform/errors";
import { findProfile, listProfiles, profileChoice } from "@/lib/settings/profiles";
import { codeCalls } from "@/lib/tools/call";
import { apiCallContext } from "@/lib/tools/toolset";
import { isAdmin } from "./sign-in";

/**
 * The admin a request comes from (session or the account's API token), else 404: to anyone else, anonymous or
 * signed in, the admin's routes do not exist.
 */
export async function requireAdmin(request: Request): Promise<AccountRow> {
  const identity = request.headers.has("authorization")
    ? await requireIdentity(request)
    : await identityOfBrowser(request);
  const account = await adminOf(identity);
  if (!account) throw notFound("This page");
  return account;
}

/** The account behind an identity if it is an admin's (TOOLSMITH_ADMIN_EMAILS); for pages and routes alike. */
export async function adminOf(identity: string | undefined): Promise<AccountRow | undefined> {
  const account = identity === undefined ? null : await accountById(identity);
  return account && isAdmin(account) ? account : undefined;
}

/** An account's profiles as stored (JSON text, null for every one) as the API shows them. */
export const profilesOf = (account: Pick<AccountRow, "profiles">): string[] | null =>
  account.profiles === null ? null : (JSON.parse(account.profiles) as string[]);

/**
 * The profiles an identity may use: an account's as its admin set them; an anonymous identity's, every one. 403
 * naming the allowed ones for any other.
 */
export async function requireProfileAllowed(identity: string, profile: string): Promise<void> {
  const account = await accountById(identity);
  const allowed = account ? profilesOf(account) : null;
  if (allowed === null || allowed.includes(profile)) return;
  throw new ApiError(
    403,
    "profile_not_allowed",
    allowed.length === 0
      ? `Your account may not use any agent profile; ask an admin of this server.`
      : `Your account may not use the profile "${profile}"; it may use ${allowed.map((name) => `"${name}"`).join(", ")}.`,
  );
}

/**
 * What the composer offers an identity: the profiles it may use, and the one a new conversation gets (the default,
 * or the first allowed one when the default is not).
 */
export async function profileChoiceFor(
  identity: string | undefined,
): Promise<{ names: string[]; defaultProfile: string }> {
  const choice = profileChoice();
  const account = identity === undefined ? null : await accountById(identity);
  const allowed = account ? profilesOf(account) : null;
  if (allowed === null) return choice;
  const names = choice.names.filter((name) => allowed.includes(name));
  return { names, defaultProfile: names.includes(choice.defaultProfile) ? choice.defaultProfile : (names[0] ?? "") };
}

/** The terms of an identity's tool calls from the API: the profile its new conversations get (toolset.ts). */
export const apiCallsOf = async (identity: string) =>
  apiCallContext(identity, findProfile((await profileChoiceFor(identity)).defaultProfile));

/** tools.call on those terms, for a tool's examples run through the API. */
export const apiCodeCallsOf = async (identity: string) => codeCalls(await apiCallsOf(identity));

/** Whose audit entries a request may read: its own, or with `?all=1` an admin's, every owner's (null). */
export async function auditOwner(request: Request, all: "1" | undefined): Promise<string | null> {
  if (all === undefined) return requireIdentity(request);
  await requireAdmin(request);
  return null;
}

/** An account as the admin's routes and page show it. */
export const adminAccountJson = (account: AccountRow) => ({
  id: account.id,
  email: account.email,
  createdAt: account.createdAt.toISOString(),
  profiles: profilesOf(account),
});

/** Set the profiles an account may use: names of the profiles file, else 400 naming the first unknown; 404 for no account. */
export async function setProfilesOf(id: string, profiles: string[] | null): Promise<AccountRow> {
  const known = new Set(listProfiles().profiles.map((profile) => profile.name));
  const unknown = profiles?.find((name) => !known.has(name));
  if (unknown !== undefined)
    throw badRequest(`There is no agent profile "${unknown}"; the profiles are ${[...known].join(", ")}.`);
  if (!(await setAccountProfiles(id, profiles === null ? null : [...new Set(profiles)]))) throw notFound("The account");
  return (await accountById(id))!;
}
