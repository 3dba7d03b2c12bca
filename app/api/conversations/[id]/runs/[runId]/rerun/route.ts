import { requireConversation } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { requireProfileAllowed } from "@/lib/accounts/admin";
import { listProfiles } from "@/lib/settings/profiles";
import { answerRerun } from "@/lib/conversations/rerun";

type RunParams = { params: Promise<{ id: string; runId: string }> };

/** Run one of one's runs again in a fork, planning first or not, to compare the two. */
export const POST = route(async (request, context: RunParams) => {
  const { conversation, identity } = await requireConversation(request, context);
  // The new run is a message as the messages route takes one: its profile must still be one the owner may use.
  await requireProfileAllowed(identity, conversation.profile ?? listProfiles().defaultProfile);
  return answerRerun(request, conversation, identity, (await context.params).runId);
});
