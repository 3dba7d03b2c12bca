import { config } from "@/lib/settings/config";
import type { SequencedEvent } from "@/lib/contract/events";
import { RESYNC } from "@/lib/contract/log";

const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();

/** One SSE message: an event with its number in the stream (for a run's events, their seq in the log). */
interface SseMessage {
  seq: number;
  event: { type: string };
}

function formatSse({ seq, event }: SseMessage): string {
  return `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export interface SseSink<Message extends SseMessage = SequencedEvent> {
  send(message: Message): void;
  close(): void;
  /**
   * Close with a `resync` message: events this stream sent are not the log's (their run left the instance before
   * storing them, and another numbers its own events after the stored ones), so the client reads the log again
   * from the start instead of resuming after the last id it saw.
   */
  resync(): void;
  /** Cut the stream, as a dropped connection: the client reconnects after the last event it got. */
  fail(): void;
}

// Its id, 0, is where an EventSource resumes: the log's start.
const resyncMessage = `id: 0\nevent: ${RESYNC}\ndata: ${JSON.stringify({ type: RESYNC, message: "The run moved to another server before storing everything shown here; read the log again." })}\n\n`;

/**
 * A text/event-stream response. `start` gets a sink and returns a cleanup, called when the stream closes or the
 * client goes away. Events sent in the same tick go out as one chunk: a burst of deltas costs one write.
 */
export function sseResponse<Message extends SseMessage = SequencedEvent>(
  start: (sink: SseSink<Message>) => (() => void) | void,
  init?: ResponseInit,
): Response {
  let cleanup: (() => void) | void;
  let heartbeat: NodeJS.Timeout;
  let stalled: NodeJS.Timeout | undefined;
  let pending: string[] = [];
  let closed = false;

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const drain = () => {
          if (pending.length === 0 || closed) return;
          controller.enqueue(encoder.encode(pending.join("")));
          pending = [];
          watchBacklog();
        };
        // The response is written as fast as the client reads (Next hands the socket one chunk at a time), and what it
        // has not taken waits here: a client that stays too far behind is cut, even after the stream has closed (which
        // keeps what is queued for it).
        const backlog = () => -(controller.desiredSize ?? 0);
        const watchBacklog = () => {
          if (stalled || backlog() <= config.sseBacklog.bytes) return;
          stalled = setTimeout(() => {
            stalled = undefined;
            if (backlog() <= config.sseBacklog.bytes) return watchBacklog();
            const cut = new Error("The client did not read the event stream; reconnect after the last event.");
            if (closed) controller.error(cut);
            else finish(cut);
          }, config.sseBacklog.ms);
        };
        const finish = (cut?: Error) => {
          if (closed) return;
          drain();
          closed = true;
          clearInterval(heartbeat);
          cleanup?.();
          if (cut) controller.error(cut);
          else controller.close();
        };
        // The response's headers go out with its first bytes: a comment sends them now, so that a client following a
        // run that is quiet (a long tool call, an approval) knows at once that it is connected.
        controller.enqueue(encoder.encode(": connected\n\n"));
        heartbeat = setInterval(() => pending.push(": keep-alive\n\n") === 1 && setImmediate(drain), HEARTBEAT_MS);
        cleanup = start({
          send(event) {
            if (closed) return;
            if (pending.push(formatSse(event)) === 1) setImmediate(drain);
          },
          close: () => setImmediate(finish),
          fail: () => setImmediate(() => finish(new Error("The event stream failed; reconnect after the last event."))),
          resync() {
            if (closed) return;
            pending.push(resyncMessage);
            setImmediate(finish);
          },
        });
      },
      cancel() {
        closed = true;
        clearInterval(heartbeat);
        clearTimeout(stalled);
        cleanup?.();
      },
      // Counted in bytes, so that desiredSize says how much the client has not taken.
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );

  return new Response(stream, {
    ...init,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...init?.headers,
    },
  });
}
