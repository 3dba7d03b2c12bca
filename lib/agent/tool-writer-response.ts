import { openModel } from "@/lib/agent/model";
import type { GenerationEvent } from "@/lib/contract/generation";
import type { ToolDescription } from "@/lib/contract/requests";
import { config, modelConfig } from "@/lib/settings/config";
import { generateTool } from "@/lib/agent/tool-writer";
import { isBuiltinName } from "@/lib/tools/names";
import { ApiError } from "@/lib/http/route";
import { limitRate } from "@/lib/http/rate-limit";

const encoder = new TextEncoder();
const HEARTBEAT_MS = 15_000;

/**
 * Write a tool from a description for `identity`, answered as the client asks: a text/event-stream of every attempt
 * (`stream`), or JSON once it is over: 201 with the tool, 422 with the last attempt's failure, 502 when the model
 * server failed. Leaving (a closed connection) stops the model and the sandbox.
 */
export function generationResponse(
  request: Request,
  identity: string,
  { description, name }: ToolDescription,
  stream: boolean,
): Promise<Response> | Response {
  const model = modelConfig();
  if (!model) {
    throw new ApiError(
      503,
      "model_not_configured",
      "No model is configured to write tools: set OPENAI_API_KEY, or OPENAI_BASE_URL and TOOLSMITH_MODEL, then restart.",
    );
  }
  if (name && isBuiltinName(name)) {
    throw new ApiError(422, "reserved_name", `"${name}" is a built-in tool; choose another name.`);
  }
  limitRate("generations", identity, request);
  const events = generateTool({
    ownerId: identity,
    description,
    name,
    model: openModel(model, config.modelIdleTimeoutMs),
    api: model.api,
    attempts: config.generateAttempts,
    signal: request.signal,
  });
  return stream ? eventStream(events) : outcome(events);
}

/** The JSON answer: the last event's. */
async function outcome(events: AsyncGenerator<GenerationEvent>): Promise<Response> {
  for await (const event of events) {
    if (event.type === "tool_created") return Response.json(event.tool, { status: 201 });
    if (event.type === "generation_failed") return Response.json(event.body, { status: event.status });
  }
  // The generator ends without an outcome only when the request was abandoned; nobody reads this.
  throw new ApiError(499, "abandoned", "The client closed the request.");
}

/**
 * Each event as an SSE message, numbered from 1; a POST's stream cannot be resumed, so the ids are only an order.
 * A comment every HEARTBEAT_MS keeps proxies from closing it while a model thinks.
 */
function eventStream(events: AsyncGenerator<GenerationEvent>): Response {
  let id = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS);
    },
    async pull(controller) {
      try {
        const { done, value } = await events.next();
        if (done) {
          clearInterval(heartbeat);
          return controller.close();
        }
        controller.enqueue(encoder.encode(`id: ${++id}\nevent: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`));
      } catch (error) {
        console.error("Writing a tool failed:", error);
        clearInterval(heartbeat);
        controller.error(error);
      }
    },
    async cancel() {
      clearInterval(heartbeat);
      await events.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

/** Whether the client asked for the event stream (SEAT's JSON is the default of POST /api/tools). */
export const acceptsEventStream = (request: Request) =>
  request.headers.get("accept")?.includes("text/event-stream") ?? false;
