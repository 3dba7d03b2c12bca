import { notifications } from "@/lib/db/driver/notifications";
import { listEvents } from "@/lib/db/queries/events";
import { requestCancel, runningRun } from "@/lib/db/queries/runs";
import { activeRun } from "./run";

/*
 * What a person asks of a run from any instance: stop it, or answer a call waiting for approval. The run may execute
 * here (its object is at hand) or on another instance, reached through the database and a notification.
 */

/** Whether a run of the conversation is running, on any instance. */
export async function hasRunningRun(conversationId: string): Promise<boolean> {
  return activeRun(conversationId) !== undefined || (await runningRun(conversationId)) !== null;
}

/**
 * An answer sent to the instance that runs the call is sent again this often until that instance has stored it
 * (its approval_resolved), for this long at most: a notification is lost while the instance's listening connection
 * reconnects (lib/db/driver/notifications.ts), which takes about a second.
 */
const REMOTE_ANSWER_REPEAT_MS = 250;
const REMOTE_ANSWER_MS = 5_000;

/**
 * What became of an answer to a call waiting for approval: taken (or taken before: the same answer sent again is
 * taken as it was); refused, as no call waits under that id (another answer was taken, or its run ended); or not
 * confirmed by the instance that runs the call, which may still take it.
 */
export type ApprovalOutcome = "answered" | "not waiting" | "unconfirmed";

/** Answer a call waiting for approval, on whichever instance runs it; `signal`: the asker went away. */
export async function answerApproval(
  conversationId: string,
  approvalId: string,
  approved: boolean,
  signal?: AbortSignal,
): Promise<ApprovalOutcome> {
  if (activeRun(conversationId)?.resolveApproval(approvalId, approved)) return "answered";
  // Elsewhere, over (a run leaves this instance only once its events are stored), or asked before this instance took
  // the run over: the stored log says whether the call waits and which answer was taken. A call's request is stored
  // within a flush of being shown, so a fast click reads the log once more.
  const remote = await runningRun(conversationId);
  let readThrough = 0;
  let waiting = false;
  const deadline = performance.now() + REMOTE_ANSWER_MS;
  for (let reads = 1; ; reads++) {
    for (const { seq, event } of await listEvents(conversationId, readThrough)) {
      readThrough = seq;
      if (event.type === "approval_requested" && event.approvalId === approvalId) waiting = true;
      else if (event.type === "approval_resolved" && event.approvalId === approvalId)
        return event.approved === approved ? "answered" : "not waiting";
      // The run ended, or was taken over, which ends the step the call was in; or a later run began.
      else if (
        waiting &&
        (event.type === "run_finished" || event.type === "run_resumed" || event.type === "run_started")
      )
        return "not waiting";
    }
    if (!waiting && (!remote || reads > 1)) return "not waiting";
    if (waiting && remote)
      await notifications.publish("runs", JSON.stringify({ kind: "approval", runId: remote.id, approvalId, approved }));
    // A call waits and no run runs: its run finished, and stores its outcome in its row before the end of its log,
    // where the answer it took is read once stored; a log that never gets its end (its writes failed) shows none.
    if (performance.now() > deadline || signal?.aborted) return remote ? "unconfirmed" : "not waiting";
    await new Promise((resolve) => setTimeout(resolve, waiting ? REMOTE_ANSWER_REPEAT_MS : 100));
  }
}

/**
 * Stop the conversation's running run, on whichever instance executes it: here at once; elsewhere through the
 * database (a flag its heartbeat reads) and a notification that reaches it sooner. Its id; undefined when none runs.
 */
export async function stopRun(conversationId: string): Promise<string | undefined> {
  const local = activeRun(conversationId);
  if (local) {
    local.cancel();
    return local.id;
  }
  const remote = await runningRun(conversationId);
  if (!remote) return undefined;
  await requestCancel(remote.id);
  await notifications.publish("runs", JSON.stringify({ kind: "cancel", runId: remote.id }));
  return remote.id;
}
