import { Annotation, Verdict } from "@/lib/contract/events";
import {
  requireConversation,
  requireIdentity,
  requireSharedConversation,
  type RouteParams,
  type ShareParams,
} from "@/lib/http/access";
import { conversationOwner } from "@/lib/db/queries/conversations";
import { readJson } from "@/lib/http/body";
import { notFound } from "@/lib/platform/errors";
import { answer, route } from "@/lib/http/route";
import { limitRate } from "@/lib/http/rate-limit";
import { annotate, giveVerdict, removeAnnotation, type Reviewing } from "@/lib/review/reviews";
import { NewAnnotation, NewVerdict } from "@/lib/contract/requests";

/** The owner reviewing their conversation's trace (lib/review/). */
export async function requireOwnReview(request: Request, context: RouteParams): Promise<Reviewing> {
  const { conversation, identity } = await requireConversation(request, context);
  return { conversationId: conversation.id, ownerId: identity, identity };
}

/** Someone reviewing through a share link: they need an identity to sign with, and the link must stand. */
export async function requireSharedReview(request: Request, context: ShareParams): Promise<Reviewing> {
  // The link first: a members-only one tells a stranger to sign in, rather than that they have no cookie.
  const conversation = await requireSharedConversation(request, context);
  const identity = await requireIdentity(request);
  const ownerId = await conversationOwner(conversation.id);
  if (!ownerId) throw notFound("The shared conversation");
  return { conversationId: conversation.id, ownerId, identity };
}

/**
 * The review routes, the same for the owner (/api/conversations/{id}/…) and for a link holder (/api/share/{token}/…):
 * only who may review differs, which `reviewer` checks (lib/http/access.ts).
 */
export function reviewRoutes<Params extends object>(
  reviewer: (request: Request, context: { params: Promise<Params> }) => Promise<Reviewing>,
) {
  type Context = { params: Promise<Params> };
  return {
    annotate: route(async (request, context: Context) => {
      const reviewing = await reviewer(request, context);
      limitRate("reviews", reviewing.identity, request);
      const annotation = await annotate(reviewing, await readJson(request, NewAnnotation));
      return answer(Annotation, annotation, 201);
    }),
    deleteAnnotation: route(async (request, context: { params: Promise<Params & { annotationId: string }> }) => {
      const reviewing = await reviewer(request, context);
      limitRate("reviews", reviewing.identity, request);
      await removeAnnotation(reviewing, (await context.params).annotationId);
      return new Response(null, { status: 204 });
    }),
    giveVerdict: route(async (request, context: Context) => {
      const reviewing = await reviewer(request, context);
      limitRate("reviews", reviewing.identity, request);
      return answer(Verdict, await giveVerdict(reviewing, await readJson(request, NewVerdict)), 201);
    }),
  };
}
