import type { z } from "zod";
import { badRequest } from "./errors";

/** A request's query string, checked against a schema: 400 with the first problem otherwise. */
export function readQuery<Schema extends z.ZodType>(request: Request, schema: Schema): z.infer<Schema> {
  const parsed = schema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(`${issue.path.length ? `?${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return parsed.data;
}
