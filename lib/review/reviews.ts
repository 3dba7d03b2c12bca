import { createHash, randomUUID } from "node:crypto";
import {
  createAnnotation,
  deleteAnnotation,
  displayName,
  findAnnotation,
  reviewerNumber,
  runOfCard,
  runOfConversation,
  upsertVerdict,
} from "@/lib/db/queries/reviews";
import { databaseClock } from "@/lib/db/driver/clock";
import { badRequest, notFound } from "@/lib/platform/errors";
import { config } from "@/lib/settings/config";
import type { Annotation, ReviewAuthor, Verdict } from "@/lib/contract/events";
import type { NewAnnotation, NewVerdict } from "@/lib/contract/requests";
import type { z } from "zod";
import { writeReview } from "./log";

/*
 * Reviewing a trace: annotations on its cards and verdicts on its runs, by the owner and by anyone with a live share
 * link. Each is stored, then written into the conversation's log, which every viewer follows (log.ts).
 */

/** Who reviews, where: the route has checked that they own the conversation or hold a live link to it. */
export interface Reviewing {
  conversationId: string;
  ownerId: string;
  identity: string;
}

/**
 * What stands for an identity within one conversation, for every viewer: lets a page tell its viewer's own reviews
 * (which they may delete) without showing identity ids, and differs from conversation to conversation.
 */
export function authorKey(conversationId: string, identity: string): string {
  return createHash("sha256").update(`${conversationId}\n${identity}`).digest("base64url").slice(0, 16);
}

/** The name a review is signed with: the identity's display name, "Owner", or "Reviewer N" in order of arrival. */
async function authorOf({ conversationId, ownerId, identity }: Reviewing): Promise<ReviewAuthor> {
  const chosen = await displayName(identity);
  const name =
    chosen ?? (identity === ownerId ? "Owner" : `Reviewer ${await reviewerNumber(conversationId, identity)}`);
  return { key: authorKey(conversationId, identity), name };
}

export async function annotate(
  reviewing: Reviewing,
  { eventId, label, note }: z.infer<typeof NewAnnotation>,
): Promise<Annotation> {
  if (!config.annotationLabels.includes(label))
    throw badRequest(`label: "${label}" is not one of the labels: ${config.annotationLabels.join(", ")}.`);
  const runId = await runOfCard(reviewing.conversationId, eventId);
  if (!runId) throw notFound(`A step or tool call with event id ${eventId}`);
  const author = await authorOf(reviewing);
  const row = await createAnnotation({
    conversationId: reviewing.conversationId,
    runId,
    eventId,
    label,
    note,
    authorId: reviewing.identity,
  });
  const annotation: Annotation = { id: row.id, runId, eventId, label, note, author, at: row.createdAt.getTime() };
  await writeReview(reviewing.conversationId, runId, { type: "annotation_added", annotation });
  return annotation;
}

/** Delete an annotation: its author or the conversation's owner may; to anyone else it does not exist. */
export async function removeAnnotation(reviewing: Reviewing, annotationId: string): Promise<void> {
  const annotation = await findAnnotation(reviewing.conversationId, annotationId);
  if (!annotation || (annotation.authorId !== reviewing.identity && reviewing.identity !== reviewing.ownerId))
    throw notFound("The annotation");
  await deleteAnnotation(annotation.id);
  const event = { type: "annotation_deleted", annotationId } as const;
  await writeReview(reviewing.conversationId, annotation.runId, event);
}

export async function giveVerdict(
  reviewing: Reviewing,
  { runId, verdict, note }: z.infer<typeof NewVerdict>,
): Promise<Verdict> {
  if (!(await runOfConversation(reviewing.conversationId, runId))) throw notFound("The run");
  const author = await authorOf(reviewing);
  const row = await upsertVerdict({
    conversationId: reviewing.conversationId,
    runId,
    authorId: reviewing.identity,
    verdict,
    note: note || null,
  });
  // Each verdict given is its own event (a reviewer may change their mind): the id of this one, not of the row.
  const given: Verdict = {
    id: randomUUID(),
    runId,
    verdict,
    ...(row.note && { note: row.note }),
    author,
    at: databaseClock.now().getTime(),
  };
  await writeReview(reviewing.conversationId, runId, { type: "verdict_added", verdict: given });
  return given;
}
