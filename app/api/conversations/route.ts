import { Conversation, ConversationPage } from "@/lib/contract/responses";
import { createConversation } from "@/lib/db/queries/conversations";
import { requireIdentity } from "@/lib/http/access";
import { knownProfile, readJson } from "@/lib/http/body";
import { requireProfileAllowed } from "@/lib/accounts/admin";
import { ConversationListQuery, NewConversation } from "@/lib/contract/requests";
import { conversationPage } from "@/lib/conversations/list";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";
import { limitRate } from "@/lib/http/rate-limit";

export const dynamic = "force-dynamic";

/** The requester's conversations, newest first, a page at a time. */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  const { limit, cursor, verdict } = readQuery(request, ConversationListQuery);
  return answer(ConversationPage, await conversationPage(identity, limit, cursor, verdict === "down"));
});

export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  limitRate("conversations", identity, request);
  const { title, profile } = await readJson(request, NewConversation);
  if (profile) await requireProfileAllowed(identity, knownProfile(profile));
  const created = await createConversation(identity, { title, profile: profile && knownProfile(profile) });
  return answer(Conversation, created, 201);
});
