import { answer } from "@/lib/http/route";
import { Fork } from "@/lib/contract/responses";
import { ForkRequest } from "@/lib/contract/requests";
import { hasRunningRun } from "@/lib/runs/remote";
import { forkConversation } from "@/lib/db/queries/conversations";
import { forkedLog } from "@/lib/trace/fork";
import { readJson } from "@/lib/http/body";
import { conflict, notFound } from "@/lib/platform/errors";
import { limitRate } from "@/lib/http/rate-limit";
import { copyFiles } from "@/lib/files/lifecycle";

/**
 * The answer of both fork routes (the owner's and a link holder's): the copy, owned by `identity`, of the whole
 * conversation or, with `{ eventId }`, of it up to the end of that step.
 */
export async function answerFork(request: Request, conversationId: string, identity: string): Promise<Response> {
  limitRate("conversations", identity, request);
  const { eventId } = await readJson(request, ForkRequest);
  // A step's events are stored as it goes, so a fork up to a step need not wait for its run; a whole one must.
  if (eventId === undefined && (await hasRunningRun(conversationId)))
    throw conflict("A run of this conversation is in progress; fork it when it has finished.");
  const fork = await forkConversation(conversationId, identity, (log) => forkedLog(log, eventId));
  if (!fork) throw notFound(`A step or tool call with event id ${eventId} in this conversation`);
  await copyFiles(conversationId, fork.id, identity, fork.messageIds);
  return answer(Fork, { id: fork.id, title: fork.title, url: `/c/${fork.id}` }, 201);
}
