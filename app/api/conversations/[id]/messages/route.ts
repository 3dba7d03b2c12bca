import { Run, RunConflictError } from "@/lib/runs/run";
import { config } from "@/lib/settings/config";
import { conversationEventStream } from "@/lib/events/replay";
import { readJson } from "@/lib/http/body";
import { requireProfileAllowed } from "@/lib/accounts/admin";
import { listProfiles } from "@/lib/settings/profiles";
import { NewMessage } from "@/lib/contract/requests";
import { requireConversation, type RouteParams } from "@/lib/http/access";
import { conflict, tooLarge } from "@/lib/platform/errors";
import { route } from "@/lib/http/route";
import { limitRate } from "@/lib/http/rate-limit";
import { filesToAttach } from "@/lib/files/attach";

/** Start a run and stream its events. The run goes on if the client leaves; /events picks it up again. */
export const POST = route(async (request, context: RouteParams) => {
  const { conversation, identity } = await requireConversation(request, context);
  limitRate("messages", identity, request);
  // The conversation's profile, or the default one, must still be one its owner's account may use.
  await requireProfileAllowed(identity, conversation.profile ?? listProfiles().defaultProfile);
  const { content, files = [], plan } = await readJson(request, NewMessage);
  if (content.length > config.maxMessageChars) {
    throw tooLarge(`The message is ${content.length} characters; the limit is ${config.maxMessageChars}.`);
  }
  const attached = await filesToAttach(conversation.id, files);
  try {
    const run = await Run.start(conversation, identity, content, { fileIds: attached, plan });
    return conversationEventStream(conversation.id, { after: run.channel.firstSeq - 1 }, { live: run.channel });
  } catch (error) {
    if (error instanceof RunConflictError) throw conflict(`${error.message} Wait for it to finish or cancel it.`);
    throw error;
  }
});
