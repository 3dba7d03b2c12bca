import { requireSharedReview, reviewRoutes } from "@/lib/review/routes";

/** A link holder deletes an annotation they wrote (the owner, any): 204; 404 for anyone else's. */
export const DELETE = reviewRoutes(requireSharedReview).deleteAnnotation;
