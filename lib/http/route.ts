/** An error a route can answer with: a status and a message a person can act on. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    private readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toResponse(): Response {
    return Response.json(
      { error: { code: this.code, message: this.message } },
      { status: this.status, headers: this.headers },
    );
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} was not found.`);
export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const tooLarge = (message: string) => new ApiError(413, "too_large", message);
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new ApiError(503, "unavailable", message, { "retry-after": String(retryAfterSeconds) });

/** A request that fails its schema: 400 with the first problem and where it is (`prefix` marks query parameters). */
export function invalidInput(issues: { path: PropertyKey[]; message: string }[], prefix = ""): ApiError {
  const [issue] = issues;
  return badRequest(`${issue.path.length ? `${prefix}${issue.path.map(String).join(".")}: ` : ""}${issue.message}`);
}

type Handler<Context> = (request: Request, context: Context) => Promise<Response>;

/** Wrap a route handler: an ApiError becomes its response, anything else a 500 that leaks no internals. */
export function route<Context>(handler: Handler<Context>): Handler<Context> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      console.error(`${request.method} ${new URL(request.url).pathname} failed:`, error);
      return new ApiError(
        500,
        "internal_error",
        "Something went wrong on the server; the error was logged.",
      ).toResponse();
    }
  };
}
