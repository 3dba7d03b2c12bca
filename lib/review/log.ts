import { setTimeout as sleep } from "node:timers/promises";
import { databaseClock } from "@/lib/db/driver/clock";
import { notifications } from "@/lib/db/driver/notifications";
import { appendWhileIdle, lastEventSeq, listEvents } from "@/lib/db/queries/events";
import { runningRun } from "@/lib/db/queries/runs";
import { unavailable } from "@/lib/platform/errors";
import { activeRun, awaitLogEnd } from "@/lib/runs/run";
import { isReviewEvent, reviewIdOf, type ReviewEvent } from "@/lib/contract/events";

/** A review sent to the instance that runs the conversation's run is sent again this often until its log has it. */
const REMOTE_REPEAT_MS = 250;
/** How long a review waits to be in the log (a run on another instance that does not answer, a run finishing). */
const WRITE_MS = 5_000;
/** How often a review waits for a run finishing here to release the conversation. */
const FINISHING_POLL_MS = 25;

/**
 * Write a review's event (an annotation, its deletion, a verdict) into the conversation's log, where every viewer
 * follows it, once. The log has one writer at a time: a running run writes it through its channel, in order with
 * its own events (here, or on its instance through a notification, confirmed by reading the log); with no run
 * running it is appended under a lock that a run's claim waits for (queries/events.ts `appendWhileIdle`).
 * `reviewedRunId` is the run it is about; its id (`reviewIdOf`) tells it from any other, so a retry never doubles it.
 */
export async function writeReview(conversationId: string, reviewedRunId: string, event: ReviewEvent): Promise<void> {
  const reviewId = reviewIdOf(event);
  const deadline = performance.now() + WRITE_MS;
  let sentThrough: number | undefined;
  for (;;) {
    const local = activeRun(conversationId);
    if (local?.acceptReview(event)) return local.channel.allStored();
    const remote = local ? undefined : await runningRun(conversationId);
    if (remote) {
      sentThrough ??= await lastEventSeq(conversationId);
      const message = { kind: "review", runId: remote.id, event } as const;
      await notifications.publish("runs", JSON.stringify(message));
      await sleep(REMOTE_REPEAT_MS);
      if (await inLog(conversationId, sentThrough, reviewId)) return;
    } else if (local) {
      // Finishing here: it stores its end, then releases the conversation.
      await sleep(FINISHING_POLL_MS);
    } else {
      // A run that finished stores its run_finished after its row's outcome: the review comes after that end.
      await awaitLogEnd(conversationId);
      // Sent to a run that was finishing, which may have written it before it ended.
      if (sentThrough !== undefined && (await inLog(conversationId, sentThrough, reviewId))) return;
      const stored = { ...event, runId: reviewedRunId, at: databaseClock.now().getTime() };
      try {
        if ((await appendWhileIdle(conversationId, stored)) !== undefined) return;
      } catch (error) {
        // Racing a run's start or end (its rows locked, a deadlock broken, an id taken): read where things are again.
        if (performance.now() > deadline) throw error;
        console.error("A review's append was refused; trying again:", error);
        await sleep(FINISHING_POLL_MS);
      }
    }
    if (performance.now() > deadline)
      throw unavailable("The conversation's run did not take the review in time; send it again.", 1);
  }
}

async function inLog(conversationId: string, after: number, reviewId: string): Promise<boolean> {
  const events = await listEvents(conversationId, after);
  return events.some(({ event }) => isReviewEvent(event) && reviewIdOf(event) === reviewId);
}
