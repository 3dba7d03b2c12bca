/**
 * The error every layer throws for a request that cannot be served: a status and a message a person can act on.
 * `route()` (lib/http/route.ts) answers it as `{ error: { code, message } }` plus its `details`, the one error shape.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: { headers?: Record<string, string>; details?: Record<string, unknown> } = {},
  ) {
    super(message);
  }

  toResponse(): Response {
    return Response.json(
      { error: { code: this.code, message: this.message }, ...this.options.details },
      { status: this.status, headers: this.options.headers },
    );
  }

  /** FastAPI's shape, `{ detail }`, for the SEAT routes (/seat): a `detail` the thrower gave (a list of problems), else the message. */
  toDetailResponse(): Response {
    return Response.json(
      { detail: this.options.details?.detail ?? this.message },
      { status: this.status, headers: this.options.headers },
    );
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} was not found.`);
export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
export const conflict = (message: string) => new ApiError(409, "conflict", message);
export const tooLarge = (message: string) => new ApiError(413, "too_large", message);
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new ApiError(503, "unavailable", message, { headers: { "retry-after": String(retryAfterSeconds) } });

/** A request that fails its schema: 400 with the first problem and where it is (`prefix` marks query parameters). */
export function invalidInput(issues: { path: PropertyKey[]; message: string }[], prefix = ""): ApiError {
  const [issue] = issues;
  return badRequest(`${issue.path.length ? `${prefix}${issue.path.map(String).join(".")}: ` : ""}${issue.message}`);
}
