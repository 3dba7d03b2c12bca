import { answer } from "@/lib/http/route";
import { Rerun } from "@/lib/contract/responses";
import { RerunRequest } from "@/lib/contract/requests";
import { forkConversation } from "@/lib/db/queries/conversations";
import { listMessages } from "@/lib/db/queries/messages";
import { listRuns } from "@/lib/db/queries/runs";
import { logBeforeRun } from "@/lib/trace/fork";
import { readJson } from "@/lib/http/body";
import { conflict, notFound } from "@/lib/platform/errors";
import { limitRate } from "@/lib/http/rate-limit";
import { copyFiles } from "@/lib/files/lifecycle";
import { Run } from "@/lib/runs/run";

/**
 * The rerun route's answer: a fork of the owner's conversation up to (not including) run `runId`, and in it a new
 * run of that run's message and files, planning first or not as asked; with the compare page of the two runs.
 */
export async function answerRerun(
  request: Request,
  conversation: { id: string; profile: string | null },
  identity: string,
  runId: string,
): Promise<Response> {
  limitRate("conversations", identity, request);
  limitRate("messages", identity, request);
  const { plan } = await readJson(request, RerunRequest);
  const run = (await listRuns(conversation.id)).find(({ id }) => id === runId);
  if (!run) throw notFound("The run");
  if (run.status === "running") throw conflict("The run is in progress; run it again when it has finished.");
  const message = (await listMessages(conversation.id)).find((m) => m.runId === runId && m.role === "user");
  if (!message) throw notFound("The run's message");

  const fork = await forkConversation(conversation.id, identity, (log) => logBeforeRun(log, runId));
  if (!fork) throw notFound("The run's events");
  // The run's message is not in the fork: its files' copies are attached to the message sent again.
  const copies = await copyFiles(conversation.id, fork.id, identity, fork.messageIds);
  const rerun = await Run.start({ ...fork, profile: conversation.profile }, identity, message.content, {
    fileIds: copies.filter(({ original }) => original.messageId === message.id).map(({ copyId }) => copyId),
    plan,
  });
  const compareUrl = `/c/${conversation.id}/compare?a=${encodeURIComponent(runId)}&b=${encodeURIComponent(rerun.id)}`;
  return answer(Rerun, { conversationId: fork.id, runId: rerun.id, compareUrl }, 201);
}
