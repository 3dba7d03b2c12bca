import { requireOwnReview, reviewRoutes } from "@/lib/review/routes";

/** The owner annotates a step or a tool call of the trace: 201 with the annotation, streamed as annotation_added. */
export const POST = reviewRoutes(requireOwnReview).annotate;
