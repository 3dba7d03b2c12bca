import type { z } from "zod";
import { ApiError } from "@/lib/platform/errors";

export type Handler<Context> = (request: Request, context: Context) => Promise<Response>;

/**
 * Wrap a route handler: an ApiError becomes its response, anything else a 500 that leaks no internals. `present`
 * words an error: Toolsmith's `{ error }` by default, FastAPI's `{ detail }` for the SEAT routes.
 */
export function route<Context>(
  handler: Handler<Context>,
  present: (error: ApiError) => Response = (error) => error.toResponse(),
): Handler<Context> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (error instanceof ApiError) return present(error);
      console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
      return present(new ApiError(500, "internal_error", "Something went wrong on the server; the error was logged."));
    }
  };
}

/** What a route may send for a schema's value: a Date where a string goes, since Response.json writes it as one. */
type Sendable<T> = T extends string ? T | Date : T extends object ? { [Key in keyof T]: Sendable<T[Key]> } : T;

/**
 * A route's JSON answer, typed by the schema the contract gives it (lib/contract/responses.ts), so that a route
 * cannot drift from what the OpenAPI document and the browser's client say it answers.
 */
export function answer<Schema extends z.ZodType>(
  schema: Schema,
  body: Sendable<z.output<Schema>>,
  status = 200,
): Response {
  return Response.json(body, { status });
}
