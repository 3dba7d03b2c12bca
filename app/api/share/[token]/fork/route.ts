import { hasRunningRun } from "@/lib/runs/remote";
import { requireIdentity, requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { conflict, route } from "@/lib/http/errors";
import { limitRate } from "@/lib/http/rate-limit";
import { forkConversation } from "@/lib/trace/fork";

/** "Continue in my chats": a copy, with its events and tools, owned by the viewer. The original is untouched. */
export const POST = route(async (request, context: ShareParams) => {
  const identity = await requireIdentity(request);
  limitRate("conversations", identity, request);
  const conversation = await requireSharedConversation(context);
  if (await hasRunningRun(conversation.id))
    throw conflict("A run of this conversation is in progress; fork it when it has finished.");
  const fork = await forkConversation(conversation.id, identity);
  return Response.json({ ...fork, url: `/c/${fork.id}` }, { status: 201 });
});
