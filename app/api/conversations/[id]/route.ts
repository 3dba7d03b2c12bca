import { activeRun } from "@/lib/agent/run";
import { deleteConversation, updateConversationTitle } from "@/lib/db/conversations";
import { readJson } from "@/lib/http/body";
import { ConversationChange } from "@/lib/http/contract";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, route } from "@/lib/http/errors";
import { loadTrace } from "@/lib/trace/load";


export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  return Response.json(await loadTrace(conversation));
});

export const PATCH = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const { title } = await readJson(request, ConversationChange);
  return Response.json(await updateConversationTitle(conversation.id, title));
});

export const DELETE = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  if (activeRun(conversation.id)) throw conflict("A run of this conversation is active; cancel it before deleting.");
  await deleteConversation(conversation.id);
  return new Response(null, { status: 204 });
});
