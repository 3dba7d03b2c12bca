import { deleteApiToken } from "@/lib/db/queries/api-tokens";
import { requireIdentity, type RouteParams } from "@/lib/http/access";
import { notFound } from "@/lib/platform/errors";
import { route } from "@/lib/http/route";

export const DELETE = route(async (request, { params }: RouteParams) => {
  const identity = await requireIdentity(request);
  if (!(await deleteApiToken((await params).id, identity))) throw notFound("The token");
  return new Response(null, { status: 204 });
});
