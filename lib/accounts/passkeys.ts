import { cookies } from "next/headers";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { accountById } from "@/lib/db/queries/accounts";
import { createChallenge, takeChallenge } from "@/lib/db/queries/auth-challenges";
import { addPasskey, listPasskeys, notePasskeyUse, passkeyById } from "@/lib/db/queries/passkeys";
import { publicOrigin } from "@/lib/http/origin";
import { limitSignIn } from "@/lib/http/rate-limit";
import { signedInOf } from "@/lib/http/session";
import { ApiError } from "@/lib/platform/errors";
import { requireAccountsOn, signIn } from "./sign-in";

/** A ceremony must finish within this; the browser's prompt times out at the same moment. */
const CHALLENGE_MS = 5 * 60 * 1000;
type Kind = "passkey_register" | "passkey_signin";

/** The relying party is this app as people reach it: behind a proxy, TOOLSMITH_PUBLIC_URL decides. */
function relyingParty(request: Request) {
  const origin = publicOrigin(request);
  return { origin, rpID: new URL(origin).hostname, secure: origin.startsWith("https:") };
}

const cookieName = (kind: Kind, secure: boolean) => `${secure ? "__Host-" : ""}toolsmith_${kind}`;

/** Keep the challenge server-side under the hash of a secret only this browser holds, so only it can finish. */
async function rememberChallenge(request: Request, kind: Kind, data: object): Promise<void> {
  const secret = await createChallenge(kind, data, CHALLENGE_MS);
  const { secure } = relyingParty(request);
  (await cookies()).set(cookieName(kind, secure), secret, {
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: "/",
    maxAge: CHALLENGE_MS / 1000,
  });
}

/** The challenge this browser was given, used up now whatever happens next. */
async function takeOwnChallenge<Data>(request: Request, kind: Kind): Promise<Data> {
  const { secure } = relyingParty(request);
  const jar = await cookies();
  const secret = jar.get(cookieName(kind, secure))?.value;
  jar.delete({ name: cookieName(kind, secure), path: "/", secure, httpOnly: true, sameSite: "lax" });
  const data = secret ? await takeChallenge<Data>(kind, secret) : undefined;
  if (!data)
    throw new ApiError(
      400,
      "challenge_missing",
      "This sign-in step has expired or was already used, or was started in another browser. Start again.",
    );
  return data;
}

/** What an answer must match, registering or signing in: this browser's challenge, this app's origin and host. */
function expectations(request: Request, challenge: string) {
  const { origin, rpID } = relyingParty(request);
  return { expectedChallenge: challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: false };
}

/** A verification's result when it verified; otherwise 400 with why, never a 5xx. */
async function verified<Result extends { verified: boolean }>(verification: Promise<Result>): Promise<Result> {
  const result = await verification.catch((error: Error) => {
    throw new ApiError(400, "passkey_not_verified", `The passkey's answer did not verify: ${error.message}`);
  });
  if (!result.verified) throw new ApiError(400, "passkey_not_verified", "The passkey's answer did not verify.");
  return result;
}

export async function requireSignedInAccount(request: Request): Promise<string> {
  requireAccountsOn();
  const signedIn = await signedInOf(request);
  if (!signedIn) throw new ApiError(401, "sign_in_required", "Sign in first; passkeys are added to an account.");
  return signedIn.accountId;
}

export async function registrationOptions(request: Request) {
  const accountId = await requireSignedInAccount(request);
  const account = (await accountById(accountId))!;
  const existing = await listPasskeys(accountId);
  const { rpID } = relyingParty(request);
  const options = await generateRegistrationOptions({
    rpName: "Toolsmith",
    rpID,
    userName: account.email,
    userDisplayName: account.name || account.email,
    userID: new TextEncoder().encode(account.id),
    attestationType: "none",
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.id,
      transports: passkey.transports as AuthenticatorTransport[],
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    timeout: CHALLENGE_MS,
  });
  await rememberChallenge(request, "passkey_register", { challenge: options.challenge, accountId });
  return options;
}

export async function register(request: Request, response: RegistrationResponseJSON, name?: string) {
  const accountId = await requireSignedInAccount(request);
  const expected = await takeOwnChallenge<{ challenge: string; accountId: string }>(request, "passkey_register");
  if (expected.accountId !== accountId)
    throw new ApiError(400, "challenge_missing", "This step was started by another account. Start again.");
  const verification = await verified(
    verifyRegistrationResponse({ response, ...expectations(request, expected.challenge) }),
  );
  if (!verification.registrationInfo)
    throw new ApiError(400, "passkey_not_verified", "The passkey's answer did not verify.");
  const { credential } = verification.registrationInfo;
  if (await passkeyById(credential.id))
    throw new ApiError(409, "passkey_exists", "This passkey is already registered.");
  return addPasskey({
    id: credential.id,
    accountId,
    publicKey: credential.publicKey,
    counter: credential.counter,
    transports: credential.transports ?? response.response.transports ?? [],
    name: name?.trim() || "Passkey",
  });
}

export async function signInOptions(request: Request) {
  requireAccountsOn();
  limitSignIn(request, { kind: "sign_in" });
  const { rpID } = relyingParty(request);
  // Discoverable credentials: the authenticator offers this site's passkeys, so no username is asked for.
  const options = await generateAuthenticationOptions({
    rpID,
    allowCredentials: [],
    userVerification: "preferred",
    timeout: CHALLENGE_MS,
  });
  await rememberChallenge(request, "passkey_signin", { challenge: options.challenge });
  return options;
}

export async function signInWithPasskey(request: Request, response: AuthenticationResponseJSON) {
  requireAccountsOn();
  limitSignIn(request, { kind: "sign_in" });
  const expected = await takeOwnChallenge<{ challenge: string }>(request, "passkey_signin");
  const passkey = await passkeyById(response.id);
  if (!passkey) throw new ApiError(400, "passkey_unknown", "This passkey is not registered here.");
  const verification = await verified(
    verifyAuthenticationResponse({
      response,
      ...expectations(request, expected.challenge),
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: passkey.counter,
        transports: JSON.parse(passkey.transports) as AuthenticatorTransport[],
      },
    }),
  );
  const account = await accountById(passkey.accountId);
  if (!account) throw new ApiError(400, "passkey_unknown", "This passkey is not registered here.");
  await notePasskeyUse(passkey.id, verification.authenticationInfo.newCounter);
  await signIn(request, account, "passkey");
  return account;
}
