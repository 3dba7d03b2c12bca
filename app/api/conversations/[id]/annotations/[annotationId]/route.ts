import { requireOwnReview, reviewRoutes } from "@/lib/review/routes";

/** The owner deletes any annotation of the conversation: 204, streamed as annotation_deleted. */
export const DELETE = reviewRoutes(requireOwnReview).deleteAnnotation;
