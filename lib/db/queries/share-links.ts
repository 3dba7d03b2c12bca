import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/driver/client";
import { notifications } from "@/lib/db/driver/notifications";

/** Who may open a link: anyone who holds it, or only signed-in accounts of this instance (lib/http/access.ts). */
export type ShareVisibility = "anyone" | "members";

/**
 * The conversation's link, made if it has none: one active link per conversation. Asking again with another
 * visibility changes the link's, and keeps its token.
 */
export async function ensureShareLink(conversationId: string, visibility: ShareVisibility = "anyone") {
  const existing = await db.shareLink.findUnique({ where: { conversationId } });
  if (existing) {
    if (existing.visibility === visibility) return { link: existing, created: false };
    const link = await db.shareLink.update({ where: { conversationId }, data: { visibility } });
    await announceShareChange(conversationId);
    return { link, created: false };
  }
  const link = await db.shareLink.create({
    data: { conversationId, visibility, token: randomBytes(32).toString("base64url") },
  });
  return { link, created: true };
}

export function findShareLink(conversationId: string) {
  return db.shareLink.findUnique({ where: { conversationId } });
}

/** The shared conversation behind a token, or null for an unknown or revoked one. */
export async function findSharedConversation(token: string) {
  const link = await db.shareLink.findUnique({
    where: { token },
    select: {
      visibility: true,
      conversation: { select: { id: true, title: true, profile: true, createdAt: true, updatedAt: true } },
    },
  });
  return link ? { conversation: link.conversation, visibility: link.visibility as ShareVisibility } : null;
}

/** The visibility of each of these tokens' links that stand (not revoked, their conversation not deleted). */
export async function standingShareTokens(tokens: string[]): Promise<Map<string, ShareVisibility>> {
  const links = await db.shareLink.findMany({
    where: { token: { in: tokens } },
    select: { token: true, visibility: true },
  });
  return new Map(links.map(({ token, visibility }) => [token, visibility as ShareVisibility]));
}

/** Tell every instance that a conversation's link changed, so that the streams open on it check it (lib/share/revocation.ts). */
async function announceShareChange(conversationId: string): Promise<void> {
  // The change holds whether or not the word goes out: a stream that misses it finds out when it checks again.
  await notifications
    .publish("shares", conversationId)
    .catch((error) => console.error("Could not announce a changed share link:", error));
}

/** Revoke the conversation's link, and tell every instance, so that the streams open on it end (lib/share/revocation.ts). */
export async function revokeShareLink(conversationId: string): Promise<boolean> {
  const { count } = await db.shareLink.deleteMany({ where: { conversationId } });
  if (count > 0) await announceShareChange(conversationId);
  return count > 0;
}

export function listShareLinks(ownerId: string) {
  return db.shareLink.findMany({
    where: { conversation: { ownerId } },
    orderBy: { createdAt: "desc" },
    select: { token: true, visibility: true, createdAt: true, conversation: { select: { id: true, title: true } } },
  });
}
