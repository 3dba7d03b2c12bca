import { requireIdentity } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { listProfiles } from "@/lib/settings/profiles";

/** The agent profiles a conversation can run under, with their tools, and which one is the default. */
export const GET = route(async (request) => {
  await requireIdentity(request);
  return Response.json(listProfiles());
});
