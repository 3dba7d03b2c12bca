import type { z } from "zod";
import { invalidInput } from "@/lib/platform/errors";

/** A request's query string, checked against a schema: 400 with the first problem otherwise. */
export function readQuery<Schema extends z.ZodType>(request: Request, schema: Schema): z.infer<Schema> {
  const parsed = schema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) throw invalidInput(parsed.error.issues, "?");
  return parsed.data;
}
