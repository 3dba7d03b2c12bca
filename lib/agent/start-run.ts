import { randomUUID } from "node:crypto";
import { modelConfig } from "@/lib/config";
import { updateConversationTitle } from "@/lib/db/conversations";
import { lastEventSeq } from "@/lib/db/events";
import { createMessage } from "@/lib/db/messages";
import { createRun } from "@/lib/db/runs";
import { RunChannel } from "@/lib/events/channel";
import { claimConversation, releaseConversation, type ActiveRun } from "./active-runs";
import { runAgent } from "./loop";

export class RunConflictError extends Error {}

const TITLE_CHARS = 60;

/**
 * Start a run for a new user message and return its channel at once; the run goes on in the background whether
 * or not anyone is listening, and persists everything it does.
 */
export async function startRun(conversation: { id: string; title: string }, content: string): Promise<RunChannel> {
  const runId = randomUUID();
  const active: ActiveRun = { channel: new RunChannel(conversation.id, runId), controller: new AbortController() };
  if (!claimConversation(conversation.id, active)) throw new RunConflictError("Another run of this conversation is active.");

  try {
    const model = modelConfig();
    active.channel.begin((await lastEventSeq(conversation.id)) + 1);
    await createRun({ id: runId, conversationId: conversation.id, model: model?.model ?? "none" });
    const message = await createMessage({ conversationId: conversation.id, runId, role: "user", content });
    if (conversation.title === "New chat") await updateConversationTitle(conversation.id, titleFrom(content));

    void runAgent({ conversationId: conversation.id, runId, userMessageId: message.id, model, channel: active.channel, signal: active.controller.signal })
      .catch((error) => console.error(`Run ${runId} failed:`, error))
      .finally(async () => {
        await active.channel.end();
        releaseConversation(conversation.id, active);
      });
    return active.channel;
  } catch (error) {
    releaseConversation(conversation.id, active);
    throw error;
  }
}

function titleFrom(content: string): string {
  const line = content.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || "New chat";
}
