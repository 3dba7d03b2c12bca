import { requireSharedReview, reviewRoutes } from "@/lib/review/routes";

/** A link holder's thumbs up or down on a run: 201, streamed as verdict_added. */
export const POST = reviewRoutes(requireSharedReview).giveVerdict;
