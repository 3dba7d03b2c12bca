import { requireOwnReview, reviewRoutes } from "@/lib/review/routes";

/** The owner's thumbs up or down on a run: 201, streamed as verdict_added. */
export const POST = reviewRoutes(requireOwnReview).giveVerdict;
