import { ShareLink } from "@/lib/contract/responses";
import { ensureShareLink, findShareLink, revokeShareLink } from "@/lib/db/queries/share-links";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { notFound } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";
import { publicOrigin } from "@/lib/http/origin";
import { shareLinkJson } from "@/lib/share/url";

/** Share by link: 201 with a new link, 200 with the one that already exists. */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const { link, created } = await ensureShareLink(conversation.id);
  return answer(ShareLink, shareLinkJson(publicOrigin(request), link.token), created ? 201 : 200);
});

export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const link = await findShareLink(conversation.id);
  if (!link) throw notFound("A share link for this conversation");
  return answer(ShareLink, shareLinkJson(publicOrigin(request), link.token));
});

/** Revoke: every use of the token answers 404 from now on. */
export const DELETE = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  if (!(await revokeShareLink(conversation.id))) throw notFound("A share link for this conversation");
  return new Response(null, { status: 204 });
});
