import { Profiles } from "@/lib/contract/responses";
import { requireIdentity } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";
import { listProfiles } from "@/lib/settings/profiles";

/** The agent profiles a conversation can run under, with their tools, and which one is the default. */
export const GET = route(async (request) => {
  await requireIdentity(request);
  return answer(Profiles, listProfiles());
});
