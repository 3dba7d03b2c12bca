import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { findOwnedConversation } from "@/lib/db/queries/conversations";
import { findSharedConversation } from "@/lib/db/queries/share-links";
import { accountById } from "@/lib/db/queries/accounts";
import { findOwnedTool } from "@/lib/db/queries/tools";
import { findFile } from "@/lib/db/queries/files";
import { crossSiteRefusal, hasBearerToken } from "@/lib/http/proxy-checks";
import { identityOfToken } from "@/lib/db/queries/api-tokens";
import { identityOf } from "@/lib/http/identity";
import { signedInOf } from "@/lib/http/session";
import { signInRequired } from "@/lib/http/session-cookie";
import { authConfig, mayHaveAccount } from "@/lib/settings/config";
import { MAX_EVENT_ID, SEGMENT_TOKEN, type SegmentStart } from "@/lib/contract/log";
import { ApiError, badRequest, notFound } from "@/lib/platform/errors";

/**
 * Who may see what. Every conversation route and page goes through here: a conversation is found only for its
 * owner, and for anyone else it does not exist (404, never 403, so its existence is not revealed). A share token
 * opens one conversation, read-only.
 */
export type RouteParams = { params: Promise<{ id: string }> };
/** A route's `[name]` segment (a secret's). */
export type NameParams = { params: Promise<{ name: string }> };
export type ShareParams = { params: Promise<{ token: string }> };

/**
 * Who a request acts for: the identity of its `Authorization: Bearer` API token (scripts), else of its cookie
 * (browsers). A bearer token that is not valid is an error, never a fallback to the cookie.
 */
export async function requireIdentity(request: Request): Promise<string> {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const identity = await identityOfBearer(authorization);
    if (!identity)
      throw new ApiError(
        401,
        "invalid_token",
        "The API token is not valid or was revoked; create one on the settings page (/settings).",
      );
    return identity;
  }
  const identity = await identityOfBrowser(request);
  if (identity) return identity;
  if (authConfig().mode === "required") throw signInRequired();
  throw new ApiError(401, "no_identity", "This request carries no valid identity cookie; allow cookies and retry.");
}

/**
 * Who a browser is: the account of its session when accounts are on and it has a standing one, else its anonymous
 * identity cookie, unless accounts are required. The one place that decides it, for routes and pages alike.
 */
export async function identityOfBrowser(request: { headers: Headers }): Promise<string | undefined> {
  const { mode } = authConfig();
  if (mode !== "anonymous") {
    const signedIn = await signedInOf(request);
    if (signedIn) return signedIn.accountId;
    if (mode === "required") return undefined;
  }
  return identityOf(request.headers.get("cookie"));
}

/** The identity of an `Authorization: Bearer <API token>` header; undefined for another scheme or a bad token. */
export async function identityOfBearer(authorization: string): Promise<string | undefined> {
  const [scheme, token] = authorization.split(/\s+/, 2);
  return scheme.toLowerCase() === "bearer" && token ? identityOfToken(token) : undefined;
}

const CREATE_TOKEN =
  "Create a personal API token on the settings page (/settings) and send it as `Authorization: Bearer <token>`.";

/**
 * Who a program acts for (MCP clients, SEAT scripts): its API token, else 401 with how to make one. The cookie is
 * never taken: a browser's cookie goes with requests that other sites make it send. `what` names the endpoint.
 */
export async function requireToken(request: Request, what: string): Promise<string> {
  const authorization = request.headers.get("authorization");
  const identity = authorization === null ? undefined : await identityOfBearer(authorization);
  if (identity) return identity;
  if (authorization === null) {
    throw new ApiError(401, "no_token", `${what} needs a personal API token. ${CREATE_TOKEN}`, {
      headers: { "www-authenticate": 'Bearer realm="toolsmith"' },
    });
  }
  throw new ApiError(401, "invalid_token", `The API token is not valid or was revoked. ${CREATE_TOKEN}`, {
    headers: { "www-authenticate": 'Bearer realm="toolsmith", error="invalid_token"' },
  });
}

/** The conversation a route names, if the requester owns it; 404 otherwise. */
export async function requireConversation(request: Request, { params }: RouteParams) {
  // A bad API token is a 401 (the caller must fix it); a visitor without an identity simply has nothing here.
  const identity = request.headers.has("authorization")
    ? await requireIdentity(request)
    : await identityOfBrowser(request);
  const conversation = identity ? await findOwnedConversation((await params).id, identity) : null;
  if (!conversation || !identity) throw notFound("The conversation");
  return { conversation, identity };
}

/**
 * The same check for a page: the conversation if the visitor owns it, else null (the page answers 404). Cached
 * per request, since a page's metadata and body both ask.
 */
export const ownedConversationForPage = cache(async (id: string) => {
  const identity = await memberPageIdentity();
  return identity ? findOwnedConversation(id, identity) : null;
});

/**
 * What a share token opens for a viewer (an identity, or none): the conversation and the link's visibility; "sign_in"
 * for a members-only link and a viewer who is no account of this instance; null for an unknown or revoked link, or an
 * account whose domain TOOLSMITH_ALLOWED_EMAIL_DOMAINS leaves out. The one check every share route and page goes through.
 */
async function openShare(token: string, viewer: string | undefined) {
  const shared = await findSharedConversation(token);
  if (!shared) return null;
  if (shared.visibility === "anyone") return shared;
  // An account's id is its owner id, so a session and an account's API token both name it; an anonymous one does not.
  const account = viewer === undefined ? null : await accountById(viewer);
  if (!account) return "sign_in" as const;
  return mayHaveAccount(account.email) ? shared : null;
}

/** A shared conversation for a page's visitor ("sign_in" or null as openShare says), cached per request like the above. */
export const sharedConversationForPage = cache(async (token: string) => {
  const shared = await openShare(token, await pageIdentity());
  return shared && shared !== "sign_in" ? shared.conversation : shared;
});

/**
 * The visitor of one of a person's own pages (chats, tools, settings): as pageIdentity, but when accounts are
 * required a visitor who is not signed in (a revoked or expired session) is sent to sign in. The proxy sends those
 * with no session cookie at all before the page runs.
 */
export async function memberPageIdentity(): Promise<string | undefined> {
  const identity = await pageIdentity();
  if (!identity && authConfig().mode === "required") redirect("/signin");
  return identity;
}

/** The visitor of a page, as identityOfBrowser decides; cached per request, since a page's parts each ask. */
export const pageIdentity = cache(async (): Promise<string | undefined> =>
  identityOfBrowser({ headers: await headers() }),
);

/** A tool a route names (its latest version, or `version`), if the requester owns it; 404 otherwise. */
export async function requireTool(request: Request, { params }: RouteParams, version?: number) {
  const identity = await requireIdentity(request);
  return { tool: await ownedTool((await params).id, identity, version), identity };
}

/** A tool (its latest version, or `version`) if `identity` owns it; 404 otherwise, another identity's included. */
export async function ownedTool(id: string, identity: string, version?: number) {
  const tool = await findOwnedTool(id, identity, version);
  if (!tool) throw notFound(version === undefined ? "The tool" : `Version ${version} of the tool`);
  return tool;
}

/**
 * The share link a route names, for the requester (API token, else browser): the conversation and the link's
 * visibility; 404 for an unknown or revoked one, 401 for a members-only one and a requester who is not signed in.
 */
export async function requireShare(request: Request, { params }: ShareParams) {
  const viewer = request.headers.has("authorization")
    ? await requireIdentity(request)
    : await identityOfBrowser(request);
  const shared = await openShare((await params).token, viewer);
  if (shared === "sign_in")
    throw new ApiError(
      401,
      "sign_in_required",
      "This shared conversation is for members of this server: sign in (/signin), or send an account's API token as `Authorization: Bearer <token>`.",
    );
  if (!shared) throw notFound("The shared conversation");
  return shared;
}

/** The conversation behind a share token, as requireShare checks it. */
export const requireSharedConversation = async (request: Request, context: ShareParams) =>
  (await requireShare(request, context)).conversation;

/** `?watch=1`: the event stream stays open after the run, for whatever the log gets next (lib/events/replay.ts). */
export const watching = (request: Request) => new URL(request.url).searchParams.get("watch") === "1";

/**
 * Where a client resumes a conversation's events: after `Last-Event-ID` or `?after=N`, and with `?segment=S&
 * segmentToken=T` the last segment it saw (docs/architecture.md, "Segments and resync").
 */
export function resumePoint(request: Request): { after: number; segment?: SegmentStart } {
  const query = new URL(request.url).searchParams;
  const after = eventId(request.headers.get("last-event-id") ?? query.get("after") ?? "0", "Last-Event-ID (or ?after)");
  const segment = query.get("segment");
  const token = query.get("segmentToken");
  if (segment === null) {
    if (token !== null)
      throw badRequest(
        "?segmentToken comes with ?segment, the id of the run_started or run_resumed event it is the `segment` of.",
      );
    return { after };
  }
  const id = eventId(segment, "?segment");
  if (token === null) return { after, segment: { id: Math.min(id, after) } };
  // The token is checked against the event at `id`: one the client saw, so at most its last id.
  if (!SEGMENT_TOKEN.test(token) || id < 1 || id > after) {
    throw badRequest(
      "?segmentToken is the `segment` of the event ?segment names (an event id from 1 to the last one the client has) and at most 64 letters, digits, - or _.",
    );
  }
  return { after, segment: { id, token } };
}

function eventId(raw: string, what: string): number {
  const value = Number(raw);
  // Beyond the log's range, an id would fail the statement that reads every followed conversation at once.
  if (!/^\d+$/.test(raw.trim()) || value > MAX_EVENT_ID)
    throw badRequest(`${what} must be an event id: a whole number from 0 to ${MAX_EVENT_ID}.`);
  return value;
}

/** A file a route names, if the requester owns it (by its conversation); 404 otherwise, another identity's included. */
export async function requireFile(request: Request, { params }: RouteParams) {
  const identity = request.headers.has("authorization")
    ? await requireIdentity(request)
    : await identityOfBrowser(request);
  const file = identity ? await findFile((await params).id) : null;
  if (!file || file.ownerId !== identity) throw notFound("The file");
  return { file, identity };
}

/**
 * The proxy's cross-site refusal, for the routes it leaves out (an upload, whose body it would buffer; a download,
 * whose headers are the route's own): a browser write from another site is a 403.
 */
export function refuseForeignWrite(request: Request): void {
  const refusal = hasBearerToken(request) ? undefined : crossSiteRefusal(request);
  if (refusal) throw refusal;
}
