import { ApprovalTaken } from "@/lib/contract/responses";
import { answerApproval } from "@/lib/runs/remote";
import { requireConversation } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { ApprovalAnswer } from "@/lib/contract/requests";
import { conflict, unavailable } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";

type ApprovalParams = { params: Promise<{ id: string; approvalId: string }> };

/** The owner's answer to a tool call the profile holds for approval: the run goes on with it. */
export const POST = route(async (request, context: ApprovalParams) => {
  const { conversation } = await requireConversation(request, context);
  const { approved } = await readJson(request, ApprovalAnswer);
  const { approvalId } = await context.params;
  const outcome = await answerApproval(conversation.id, approvalId, approved, request.signal);
  if (outcome === "not waiting")
    throw conflict(
      "No call of this conversation waits for that approval: it was answered otherwise, or its run ended.",
    );
  if (outcome === "unconfirmed")
    throw unavailable("The server running this conversation did not confirm the answer; send it again.", 1);
  return answer(ApprovalTaken, { approvalId, approved });
});
