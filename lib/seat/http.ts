import { z } from "zod";
import { requireToken } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/route";
import { ApiError } from "@/lib/platform/errors";
import { seatProblem } from "./wire";

/*
 * The transport of the /seat routes: Toolsmith's (lib/http) with FastAPI's error shape, `{ detail }`, and its 422
 * for a request that fails validation.
 */

/** A /seat route: an error answers `{ detail }` with its status. */
export const seatRoute = <Context>(handler: (request: Request, context: Context) => Promise<Response>) =>
  route(handler, (error) => error.toDetailResponse());

/** Who a SEAT script acts for: its API token; never a cookie, so no other site can make a browser write here. */
export const seatCaller = (request: Request) => requireToken(request, "SEAT's API (/seat)");

/** A JSON body checked against a schema: 422 with each problem as FastAPI lists them (text that is not JSON too). */
export async function readSeatBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
): Promise<z.output<Schema>> {
  let body: unknown;
  try {
    // Toolsmith's reading: its size limit, JSON's content type, nesting and well-formed text.
    body = await readJson(request, z.unknown());
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    throw invalid([{ type: "json_invalid", loc: ["body"], msg: error.message }]);
  }
  return checked(schema, body, "body");
}

/** The query string checked against a schema: 422 with each problem, as FastAPI lists them. */
export const readSeatQuery = <Schema extends z.ZodType>(request: Request, schema: Schema): z.output<Schema> =>
  checked(schema, Object.fromEntries(new URL(request.url).searchParams), "query");

function checked<Schema extends z.ZodType>(schema: Schema, value: unknown, where: "body" | "query") {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => seatProblem(issue, where)));
  return parsed.data as z.output<Schema>;
}

const invalid = (detail: unknown[]) =>
  new ApiError(422, "validation_error", "The request failed validation.", { details: { detail } });
