import type { ShareLink, SharedLink } from "@/lib/contract/responses";

/** The one place that builds a share link's address, on the server (from the public origin) and in the browser. */
export const shareUrl = (origin: string, token: string) => `${origin}/s/${token}`;

/** A conversation's link as POST and GET /api/conversations/{id}/share answer it. */
export const shareLinkJson = (origin: string, link: { token: string; visibility: string }): ShareLink => ({
  token: link.token,
  visibility: link.visibility as ShareLink["visibility"],
  url: shareUrl(origin, link.token),
});

/** One of the requester's links as GET /api/shares lists it. */
export const sharedLinkJson = (
  origin: string,
  link: Omit<SharedLink, "url" | "createdAt" | "visibility"> & { createdAt: Date; visibility: string },
) => ({ ...link, ...shareLinkJson(origin, link) });
