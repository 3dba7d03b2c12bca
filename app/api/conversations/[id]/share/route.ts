import { ShareLink } from "@/lib/contract/responses";
import { ShareRequest } from "@/lib/contract/requests";
import { ensureShareLink, findShareLink, revokeShareLink } from "@/lib/db/queries/share-links";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { badRequest, notFound } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";
import { publicOrigin } from "@/lib/http/origin";
import { authConfig } from "@/lib/settings/config";
import { shareLinkJson } from "@/lib/share/url";

/** Share by link: 201 with a new link, 200 with the one that already exists (its visibility as asked). */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const { visibility } = await readJson(request, ShareRequest);
  if (visibility === "members" && authConfig().mode === "anonymous")
    throw badRequest(
      'A members-only link needs accounts, which are off on this server (TOOLSMITH_AUTH=anonymous); share with "anyone".',
    );
  const { link, created } = await ensureShareLink(conversation.id, visibility);
  return answer(ShareLink, shareLinkJson(publicOrigin(request), link), created ? 201 : 200);
});

export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const link = await findShareLink(conversation.id);
  if (!link) throw notFound("A share link for this conversation");
  return answer(ShareLink, shareLinkJson(publicOrigin(request), link));
});

/** Revoke: every use of the token answers 404 from now on. */
export const DELETE = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  if (!(await revokeShareLink(conversation.id))) throw notFound("A share link for this conversation");
  return new Response(null, { status: 204 });
});
