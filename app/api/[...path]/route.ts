import { ApiError } from "@/lib/platform/errors";

/** Any /api path that no route has: JSON, as from every route, rather than Next's HTML page or a server action's 409. */
const noRoute = async (request: Request) =>
  new ApiError(
    404,
    "not_found",
    `No API route answers ${request.method} ${new URL(request.url).pathname}; the routes are in /api/openapi.json.`,
  ).toResponse();

export const GET = noRoute;
export const HEAD = noRoute;
export const POST = noRoute;
export const PUT = noRoute;
export const PATCH = noRoute;
export const DELETE = noRoute;
export const OPTIONS = noRoute;
