import type { z } from "zod";
import { LoggedEvent } from "@/lib/contract/events";
import { GENERATION_EVENT_TYPES, GenerationEvent } from "@/lib/contract/generation";
import { RESYNC } from "@/lib/contract/log";
import { apiRoutes } from "@/lib/contract/routes";

type Answers = Record<string, { content?: Record<string, { schema?: z.ZodType }> }>;

/** The documented routes, templates without parameters first: /api/tools/search before /api/tools/{id}. */
const routes = Object.entries(apiRoutes)
  .map(([template, operations]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    operations: operations as Record<string, { responses?: Answers }>,
  }))
  .sort((a, b) => a.template.split("{").length - b.template.split("{").length);

/** Under Vitest every answer and event is checked; a benchmark (the same helpers) does not pay for it. */
const checking = process.env.VITEST !== undefined;

/** Each documented route and method an answer was checked for: contract.test.ts makes sure none is left out. */
export const checkedOperations = new Set<string>();

/**
 * Check an answer against the contract (lib/contract/routes.ts): its status must be documented for the route, and
 * a JSON body must match that status's schema. Throws, failing the test, with what differs.
 */
export async function checkAnswer(method: string, url: string, response: Response): Promise<void> {
  const { pathname } = new URL(url);
  if (!checking || !/^\/(api\/|seat(\/|$))/.test(pathname)) return;
  const route = routes.find(({ pattern }) => pattern.test(pathname));
  const operation = route?.operations[method.toLowerCase()];
  if (!route || !operation) {
    // A method or path the API does not have: Next answers 405 or 404, which is right.
    if (response.status === 404 || response.status === 405) return;
    throw new Error(`${method} ${pathname} answered ${response.status} but is not documented`);
  }
  checkedOperations.add(`${method.toUpperCase()} ${route.template}`);
  const answer = operation.responses?.[String(response.status)];
  if (!answer) throw new Error(`${method} ${route.template} answered ${response.status}, which is not documented`);
  const schema = answer.content?.["application/json"]?.schema;
  // An answer documented as JSON or as an event stream (POST /api/mcp) may be either.
  const streamed = response.headers.get("content-type")?.includes("text/event-stream");
  if (!schema || (streamed && answer.content?.["text/event-stream"])) return;
  if (!response.headers.get("content-type")?.includes("application/json")) {
    throw new Error(`${method} ${route.template} ${response.status} is documented as JSON but is not`);
  }
  const body: unknown = await response.clone().json();
  const checked = schema.safeParse(body);
  if (!checked.success) {
    const problems = checked.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
    throw new Error(`${method} ${route.template} ${response.status} does not match its schema: ${problems.join("; ")}`);
  }
}

/** Check an SSE message's data against its contract: a run's (events.ts), or a tool generation's (generation.ts). */
export function checkEvent(event: string, data: unknown): void {
  if (!checking || event === RESYNC) return;
  const checked = (GENERATION_EVENT_TYPES.has(event) ? GenerationEvent : LoggedEvent).safeParse(data);
  if (!checked.success) {
    throw new Error(`An event does not match the contract: ${JSON.stringify(data)}: ${checked.error.message}`);
  }
}
