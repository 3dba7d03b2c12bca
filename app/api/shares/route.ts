import { listShareLinks } from "@/lib/db/queries/share-links";
import { requireIdentity } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { publicOrigin } from "@/lib/http/origin";
import { shareUrl } from "@/lib/share/url";

/** The requester's shared links. */
export const GET = route(async (request) => {
  const links = await listShareLinks(await requireIdentity(request));
  const origin = publicOrigin(request);
  return Response.json(links.map((link) => ({ ...link, url: shareUrl(origin, link.token) })));
});
