import { SharedLinks } from "@/lib/contract/responses";
import { listShareLinks } from "@/lib/db/queries/share-links";
import { requireIdentity } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { publicOrigin } from "@/lib/http/origin";
import { sharedLinkJson } from "@/lib/share/url";

/** The requester's shared links. */
export const GET = route(async (request) => {
  const links = await listShareLinks(await requireIdentity(request));
  const origin = publicOrigin(request);
  return answer(
    SharedLinks,
    links.map((link) => sharedLinkJson(origin, link)),
  );
});
