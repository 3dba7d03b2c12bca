"use client";

import { ShieldQuestion } from "lucide-react";
import { useContext, useState } from "react";
import { api, problemText } from "@/lib/api/client";
import type { ToolCallView } from "@/lib/trace/state";
import { Button } from "@/components/ui/Button";
import { OwnTraceContext } from "@/components/tools/LibraryActions";

/** A call the profile holds for a person: Approve or Deny (the input is on the card above); then what was said. */
export function ApprovalPrompt({ call }: { call: ToolCallView }) {
  const conversationId = useContext(OwnTraceContext);
  const [working, setWorking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const approval = call.approval!;
  if (approval.state !== "pending") {
    return (
      <p className="text-sm font-medium text-zinc-700 dark:text-zinc-300" data-testid="approval-outcome">
        {approval.state === "approved" ? "Approved by a person." : "Denied by a person."}
      </p>
    );
  }
  const answer = async (approved: boolean) => {
    setWorking(true);
    try {
      await api.answerApproval(conversationId!, approval.approvalId, approved);
    } catch (error) {
      setProblem(problemText(error));
      setWorking(false);
    }
  };
  return (
    <div
      role="group"
      aria-label={`Approve ${call.name}?`}
      className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-100"
      data-testid="approval-prompt"
    >
      <p className="flex items-center gap-2 font-medium">
        <ShieldQuestion className="size-4" aria-hidden /> This profile asks before each {call.name} call: run it with
        the input above?
      </p>
      {conversationId ? (
        <div className="mt-2 flex gap-2">
          <Button variant="primary" disabled={working} onClick={() => void answer(true)}>
            Approve
          </Button>
          <Button variant="danger" disabled={working} onClick={() => void answer(false)}>
            Deny
          </Button>
        </div>
      ) : (
        <p className="mt-1">Waiting for the owner&apos;s answer.</p>
      )}
      {problem && (
        <p role="alert" className="mt-2 text-rose-800 dark:text-rose-300">
          {problem}
        </p>
      )}
    </div>
  );
}
