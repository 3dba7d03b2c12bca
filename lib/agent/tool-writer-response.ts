import { GenerationFailure, type GenerationEvent } from "@/lib/contract/generation";
import type { ToolDescription } from "@/lib/contract/requests";
import { Tool } from "@/lib/contract/responses";
import { sseResponse } from "@/lib/events/sse";
import { limitRate } from "@/lib/http/rate-limit";
import { answer } from "@/lib/http/route";
import { ApiError } from "@/lib/platform/errors";
import { config, modelConfig } from "@/lib/settings/config";
import { reservedName } from "@/lib/tools/library/wire";
import { isReservedName } from "@/lib/tools/names";
import type { CodeCalls } from "@/lib/tools/types";
import { openModel } from "./model";
import { generateTool } from "./tool-writer";

/**
 * Write a tool from a description for `identity`, answered as the client asks: a text/event-stream of every attempt
 * (`stream`), or JSON once it is over: 201 with the tool, 422 with the last attempt's failure, 502 when the model
 * server failed. Leaving (a closed connection) stops the model and the sandbox.
 */
export function generationResponse(
  request: Request,
  identity: string,
  body: ToolDescription,
  stream: boolean,
  calls?: CodeCalls,
): Promise<Response> | Response {
  const events = startGeneration(request, identity, body, calls);
  return stream ? eventStream(events) : outcome(events);
}

/**
 * The attempts of writing a tool for `identity`, as events (the one start of every surface that writes tools: /api
 * and /seat): 503 without a model, 422 for a built-in's name, 429 past the rate limit. `calls`: the identity's tool
 * calls from the API, with which a new version of a tool others use runs their examples.
 */
export function startGeneration(
  request: Request,
  identity: string,
  { description, name, language = "javascript" }: ToolDescription,
  calls?: CodeCalls,
): AsyncGenerator<GenerationEvent> {
  const model = modelConfig();
  if (!model) {
    throw new ApiError(
      503,
      "model_not_configured",
      "No model is configured to write tools: set OPENAI_API_KEY, or OPENAI_BASE_URL and TOOLSMITH_MODEL, then restart.",
    );
  }
  if (name && isReservedName(name)) throw reservedName(name);
  limitRate("generations", identity, request);
  return generateTool({
    ownerId: identity,
    description,
    name,
    language,
    model: openModel(model, config.modelIdleTimeoutMs),
    api: model.api,
    attempts: config.generateAttempts,
    signal: request.signal,
    calls,
  });
}

/** The JSON answer: the last event's. */
async function outcome(events: AsyncGenerator<GenerationEvent>): Promise<Response> {
  for await (const event of events) {
    if (event.type === "tool_created") return answer(Tool, event.tool, 201);
    if (event.type === "generation_failed") return answer(GenerationFailure, event.body, event.status);
  }
  // The generator ends without an outcome only when the request was abandoned; nobody reads this.
  throw new ApiError(499, "abandoned", "The client closed the request.");
}

/**
 * Each event as an SSE message, numbered from 1; a POST's stream cannot be resumed, so the ids are only an order.
 * Leaving ends the generator, and the request's signal has stopped the model and the sandbox.
 */
function eventStream(events: AsyncGenerator<GenerationEvent>): Response {
  return sseResponse<{ seq: number; event: GenerationEvent }>((sink) => {
    void (async () => {
      let seq = 0;
      try {
        for await (const event of events) sink.send({ seq: ++seq, event });
        sink.close();
      } catch (error) {
        console.error("Writing a tool failed:", error);
        sink.fail();
      }
    })();
    return () => void events.return(undefined);
  });
}

/** Whether the client asked for the event stream (SEAT's JSON is the default of POST /api/tools). */
export const acceptsEventStream = (request: Request) =>
  request.headers.get("accept")?.includes("text/event-stream") ?? false;
