import { Conversation, ConversationTrace } from "@/lib/contract/responses";
import { hasRunningRun } from "@/lib/runs/remote";
import { deleteConversation, updateConversation } from "@/lib/db/queries/conversations";
import { knownProfile, readJson } from "@/lib/http/body";
import { requireProfileAllowed } from "@/lib/accounts/admin";
import { ConversationChange } from "@/lib/contract/requests";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, notFound } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";
import { deleteWithFiles } from "@/lib/files/lifecycle";
import { loadTrace } from "@/lib/conversations/trace";

export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  return answer(ConversationTrace, await loadTrace(conversation));
});

export const PATCH = route(async (request, context: RouteParams) => {
  const { conversation, identity } = await requireConversation(request, context);
  const { title, profile } = await readJson(request, ConversationChange);
  if (profile) await requireProfileAllowed(identity, knownProfile(profile));
  const changed = await updateConversation(conversation.id, { title, profile: profile && knownProfile(profile) });
  if (!changed) throw notFound("The conversation");
  return answer(Conversation, changed);
});

export const DELETE = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  if (await hasRunningRun(conversation.id))
    throw conflict("A run of this conversation is active; cancel it before deleting.");
  await deleteWithFiles([conversation.id], () => deleteConversation(conversation.id));
  return new Response(null, { status: 204 });
});
