import http from "node:http";
import { createParser } from "eventsource-parser";
import { checkEvent } from "./contract";

export interface SseMessage {
  id: number;
  event: string;
  data: Record<string, unknown> & { type: string; runId: string };
}

/** A parser of SSE text that hands `onMessage` each message, its data parsed, as it completes. */
function messageParser(onMessage: (message: SseMessage) => void) {
  return createParser({
    onEvent: ({ id, event = "message", data }) => {
      const parsed = JSON.parse(data);
      checkEvent(event, parsed);
      onMessage({ id: Number(id), event, data: parsed });
    },
  });
}

/** Read an SSE response to its end (or until `until` says stop), parsing every message. */
export async function readSse(response: Response, until?: (message: SseMessage) => boolean): Promise<SseMessage[]> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(
      `Expected an event stream, got ${response.status} ${response.headers.get("content-type")}: ${await response.text()}`,
    );
  }
  const messages: SseMessage[] = [];
  let stopped = false;
  const parser = messageParser((message) => {
    if (stopped) return;
    messages.push(message);
    stopped = until?.(message) ?? false;
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
    if (stopped) {
      await reader.cancel();
      break;
    }
  }
  return messages;
}

/**
 * Read an SSE response as a client shown it live: `shown` grows as messages arrive, and `end` says whether the
 * stream ended normally or its connection was cut (a server that stopped or died).
 */
export function watchSse(response: Response): { shown: SseMessage[]; end: Promise<"ended" | "cut off"> } {
  const shown: SseMessage[] = [];
  const end = readSse(response, (message) => {
    shown.push(message);
    return false;
  }).then(
    () => "ended" as const,
    () => "cut off" as const,
  );
  return { shown, end };
}

/** Read a stream to its end, noting when it first showed a message that `marks` (NaN when none did). */
export async function readNotingFirst(
  response: Response,
  marks: (message: SseMessage) => boolean,
): Promise<{ events: SseMessage[]; markedAt: number }> {
  let markedAt = Number.NaN;
  const events = await readSse(response, (message) => {
    if (Number.isNaN(markedAt) && marks(message)) markedAt = performance.now();
    return false;
  });
  return { events, markedAt };
}

/**
 * Open an SSE response over node:http and read it message by message as its bytes arrive: no fetch and no web
 * streams, so that a benchmark's hundreds of live readers cost the machine they share with the servers little, and
 * the time a message arrived is noted without a queue of promises in between. Resolves once the response began,
 * with `ended`: every message, once it ends.
 */
export function openSse(
  url: string,
  init: { method?: "GET" | "POST"; cookie?: string; body?: unknown },
  onMessage: (message: SseMessage) => void,
): Promise<{ ended: Promise<SseMessage[]> }> {
  const messages: SseMessage[] = [];
  const parser = messageParser((message) => {
    messages.push(message);
    onMessage(message);
  });
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const request = http.request(url, {
      method: init.method ?? "GET",
      headers: {
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(body ? { "content-type": "application/json" } : {}),
      },
    });
    request.on("response", (response) => {
      if (!response.headers["content-type"]?.startsWith("text/event-stream")) {
        response.resume();
        return reject(new Error(`Expected an event stream from ${url}, got ${response.statusCode}`));
      }
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => parser.feed(chunk));
      resolve({
        ended: new Promise((end, fail) => {
          response.on("end", () => end(messages));
          response.on("error", fail);
        }),
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}
