import { requireSharedReview, reviewRoutes } from "@/lib/review/routes";

/** A link holder annotates a step or a tool call: 201, streamed to everyone viewing; 404 once the link is revoked. */
export const POST = reviewRoutes(requireSharedReview).annotate;
