import { z } from "zod";
import { activeRun } from "@/lib/agent/run";
import { deleteConversation, updateConversationTitle } from "@/lib/db/conversations";
import { readJson } from "@/lib/http/body";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, route } from "@/lib/http/errors";
import { loadTrace } from "@/lib/trace/load";

const Rename = z.object({ title: z.string().trim().min(1, "title must not be empty").max(200) });

export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  return Response.json(await loadTrace(conversation));
});

export const PATCH = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const { title } = await readJson(request, Rename);
  return Response.json(await updateConversationTitle(conversation.id, title));
});

export const DELETE = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  if (activeRun(conversation.id)) throw conflict("A run of this conversation is active; cancel it before deleting.");
  await deleteConversation(conversation.id);
  return new Response(null, { status: 204 });
});
