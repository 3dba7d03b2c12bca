import { headers } from "next/headers";
import { cache } from "react";
import { findOwnedConversation } from "@/lib/db/conversations";
import { findSharedConversation } from "@/lib/db/share-links";
import { identityOf } from "@/lib/identity";
import { ApiError, badRequest, notFound } from "./errors";

/**
 * Who may see what. Every conversation route and page goes through here: a conversation is found only for its
 * owner, and for anyone else it does not exist (404, never 403, so its existence is not revealed). A share token
 * opens one conversation, read-only.
 */
export type RouteParams = { params: Promise<{ id: string }> };
export type ShareParams = { params: Promise<{ token: string }> };

export function requireIdentity(request: Request): string {
  const identity = identityOf(request.headers.get("cookie"));
  if (!identity) throw new ApiError(401, "no_identity", "This request carries no valid identity cookie; allow cookies and retry.");
  return identity;
}

/** The conversation a route names, if the requester owns it; 404 otherwise. */
export async function requireConversation(request: Request, { params }: RouteParams) {
  const identity = identityOf(request.headers.get("cookie"));
  const conversation = identity ? await findOwnedConversation((await params).id, identity) : null;
  if (!conversation || !identity) throw notFound("The conversation");
  return { conversation, identity };
}

/**
 * The same check for a page: the conversation if the visitor owns it, else null (the page answers 404). Cached
 * per request, since a page's metadata and body both ask.
 */
export const ownedConversationForPage = cache(async (id: string) => {
  const identity = identityOf((await headers()).get("cookie"));
  return identity ? findOwnedConversation(id, identity) : null;
});

/** A shared conversation for a page, cached per request like the above. */
export const sharedConversationForPage = cache(findSharedConversation);

export async function pageIdentity(): Promise<string | undefined> {
  return identityOf((await headers()).get("cookie"));
}

/** The conversation behind a share token; 404 for an unknown or revoked one. */
export async function requireSharedConversation({ params }: ShareParams) {
  const conversation = await findSharedConversation((await params).token);
  if (!conversation) throw notFound("The shared conversation");
  return conversation;
}

/** `Last-Event-ID` (what EventSource sends on reconnect) or `?after=N`: replay only events after it. */
export function lastEventId(request: Request): number {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after") ?? "0";
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw badRequest("Last-Event-ID (or ?after) must be a non-negative integer event id.");
  return value;
}
