import * as client from "openid-client";
import { cookies } from "next/headers";
import { createChallenge, takeChallenge } from "@/lib/db/queries/auth-challenges";
import { accountOfOidcLogin, linkOidcLogin } from "@/lib/db/queries/accounts";
import { publicOrigin } from "@/lib/http/origin";
import { limitSignIn } from "@/lib/http/rate-limit";
import { ApiError } from "@/lib/platform/errors";
import { authConfig } from "@/lib/settings/config";
import { nextPath } from "./next-path";
import { accountOfVerifiedEmail, requireAccountsOn, signIn } from "./sign-in";

/** A sign-in at the provider must come back within this, or start again. */
const STEP_LIFETIME_MS = 10 * 60_000;
/** The cookie that ties the provider's answer to the browser that asked: sign-in CSRF cannot finish another's step. */
const STEP_COOKIE = "toolsmith_oidc";
export const CALLBACK_PATH = "/api/auth/callback/oidc";

interface Step {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
}

/** Why a sign-in failed, as /signin?error= names it: the page says each in a sentence. */
export type OidcFailure =
  | "oidc_expired"
  | "oidc_failed"
  | "oidc_unavailable"
  | "oidc_no_verified_email"
  | "domain_not_allowed"
  | "rate_limited";

export class OidcSignInError extends Error {
  constructor(readonly code: OidcFailure) {
    super(code);
  }
}

let discovered: Promise<client.Configuration> | undefined;

/**
 * The provider's configuration, discovered once per process (again after a failure). Plain http is allowed for a
 * loopback issuer only: a provider on the same machine, as in development and tests.
 */
function providerConfiguration(): Promise<client.Configuration> {
  const oidc = requireSingleSignOn();
  const issuer = new URL(oidc.issuer);
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
  discovered ??= client
    .discovery(
      issuer,
      oidc.clientId,
      oidc.clientSecret,
      oidc.clientSecret ? undefined : client.None(),
      issuer.protocol === "http:" && loopback ? { execute: [client.allowInsecureRequests] } : undefined,
    )
    .catch((error: unknown) => {
      discovered = undefined;
      console.error("Single sign-on: the provider's discovery failed:", error);
      throw new OidcSignInError("oidc_unavailable");
    });
  return discovered;
}

function requireSingleSignOn() {
  requireAccountsOn();
  const { oidc } = authConfig();
  if (!oidc) throw new ApiError(404, "sso_off", "Single sign-on is not configured (TOOLSMITH_OIDC_ISSUER).");
  return oidc;
}

const redirectUri = (request: Request) => `${publicOrigin(request)}${CALLBACK_PATH}`;

/** Begin a sign-in: a one-use step (state, nonce, PKCE verifier) tied to this browser, and the provider's URL. */
export async function startOidcSignIn(request: Request, next: string | null): Promise<URL> {
  const configuration = await providerConfiguration();
  const step: Step = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    next: nextPath(next),
  };
  const secret = await createChallenge("oidc", step, STEP_LIFETIME_MS);
  const secure = publicOrigin(request).startsWith("https:");
  (await cookies()).set(STEP_COOKIE, secret, {
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: CALLBACK_PATH,
    maxAge: STEP_LIFETIME_MS / 1000,
  });
  return client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri(request),
    scope: "openid email profile",
    code_challenge: await client.calculatePKCECodeChallenge(step.verifier),
    code_challenge_method: "S256",
    state: step.state,
    nonce: step.nonce,
  });
}

/**
 * The provider's answer: the step of this browser (used up whatever happens), the code exchanged with its PKCE
 * verifier, the ID token checked by openid-client (signature, issuer, audience, nonce, expiry), then the account:
 * the one this subject signed in as before, else the one of its email if the provider verified it. Answers where to go.
 */
export async function finishOidcSignIn(request: Request): Promise<string> {
  requireSingleSignOn();
  const jar = await cookies();
  const secret = jar.get(STEP_COOKIE)?.value;
  jar.delete({ name: STEP_COOKIE, path: CALLBACK_PATH });
  const step = secret ? await takeChallenge<Step>("oidc", secret) : undefined;
  if (!step) throw new OidcSignInError("oidc_expired");
  try {
    limitSignIn(request, { kind: "sign_in" });
  } catch {
    throw new OidcSignInError("rate_limited");
  }
  const configuration = await providerConfiguration();
  // The URL the provider redirected to, as the public origin has it (behind a proxy, request.url's host is not).
  const currentUrl = new URL(`${redirectUri(request)}${new URL(request.url).search}`);
  let tokens;
  try {
    tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: step.verifier,
      expectedState: step.state,
      expectedNonce: step.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    console.warn("Single sign-on refused:", error instanceof Error ? error.message : error);
    throw new OidcSignInError("oidc_failed");
  }
  const claims = tokens.claims()!;
  const linked = await accountOfOidcLogin(claims.iss, claims.sub);
  if (linked) {
    await signIn(request, linked, "oidc");
    return step.next;
  }
  const profile = claims.email === undefined ? await userInfo(configuration, tokens.access_token, claims.sub) : claims;
  // An address the provider did not verify proves nothing: it could be anyone's, and must not open their account.
  if (typeof profile.email !== "string" || profile.email_verified !== true)
    throw new OidcSignInError("oidc_no_verified_email");
  let account;
  try {
    account = await accountOfVerifiedEmail(profile.email, typeof profile.name === "string" ? profile.name : undefined);
  } catch (error) {
    if (error instanceof ApiError && error.code === "domain_not_allowed")
      throw new OidcSignInError("domain_not_allowed");
    throw error;
  }
  await linkOidcLogin(claims.iss, claims.sub, account.id);
  await signIn(request, account, "oidc");
  return step.next;
}

async function userInfo(configuration: client.Configuration, accessToken: string, subject: string) {
  try {
    return await client.fetchUserInfo(configuration, accessToken, subject);
  } catch (error) {
    console.warn("Single sign-on: userinfo failed:", error instanceof Error ? error.message : error);
    throw new OidcSignInError("oidc_failed");
  }
}
