import { EventSourceParserStream } from "eventsource-parser/stream";
import { errorFrom } from "@/lib/api/client";
import { RESYNC } from "@/lib/contract/log";
import { backoffDelay, sleep, type Backoff } from "@/lib/platform/retry";
import type { TraceEvent } from "@/lib/trace/state";

/**
 * Read a text/event-stream response to its end, each event to `onEvent` with its SSE id: the browser's one reader, for
 * the POST that starts a run and the GET that follows one. Resolves with "resync" when told to read the log again.
 */
export async function readEventStream(
  response: Response,
  onEvent: (event: TraceEvent) => void,
  signal?: AbortSignal,
): Promise<typeof RESYNC | undefined> {
  if (!response.ok || !response.body) throw await errorFrom(response);
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      if (value.event === RESYNC) return RESYNC;
      if (value.data) onEvent({ ...JSON.parse(value.data), id: Number(value.id) });
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

export type FollowState = "live" | "reconnecting" | "done";

export interface FollowOptions {
  /** A stream already open (the POST that started the run); otherwise the first connection is `reconnect`'s. */
  first?: Response;
  /** Opens the event stream after the given id. */
  reconnect: (after: number, signal: AbortSignal) => Promise<Response>;
  /** The newest id seen so far: where a new connection resumes. */
  lastSeenId: () => number;
  onEvent: (event: TraceEvent) => void;
  /** Forget every event seen: the next connection reads the log from the start (`lastSeenId` must say 0). */
  onResync: () => void;
  onState?: (state: FollowState) => void;
  /** The server refused the stream (a 4xx but 429: a revoked share link, a deleted conversation), which ends following. */
  onRefused?: (error: unknown) => void;
  /** Follow for good: a stream that ends is opened again (a watching one ends only as its server stops). */
  watch?: boolean;
}

/** The wait before a reconnect: 250 ms, 500 ms, 1 s … up to 5 s. */
export const RECONNECT_BACKOFF: Backoff = { initialMs: 250, factor: 2, maxMs: 5_000 };

/**
 * Follow a conversation's events until the stream ends normally (watching, for good): a dropped connection
 * reconnects after the last id seen, with backoff; a 4xx ends it; `resync` starts over from the first event.
 * Returns a stop function.
 */
export function followEvents({
  first,
  reconnect,
  lastSeenId,
  onEvent,
  onResync,
  onState = () => {},
  onRefused = () => {},
  watch = false,
}: FollowOptions): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  void (async () => {
    let pending = first;
    for (let failures = 0; !signal.aborted;) {
      let delivered = false;
      try {
        const response = pending ?? (await reconnect(lastSeenId(), signal));
        pending = undefined;
        onState("live");
        const ended = await readEventStream(response, (event) => ((delivered = true), onEvent(event)), signal);
        if (ended === RESYNC) onResync();
        else if (!watch) break;
        // At once after a stream that delivered events; a server that only ever ends or says resync is backed off from.
        failures = delivered ? 0 : failures + 1;
      } catch (error) {
        if (signal.aborted) break;
        if (isClientError(error)) {
          onRefused(error);
          break;
        }
        failures = delivered ? 1 : failures + 1;
        onState("reconnecting");
      }
      // A stop ends the wait at once, and the loop.
      if (failures > 0) await sleep(backoffDelay(RECONNECT_BACKOFF, failures), signal).catch(() => {});
    }
    if (!signal.aborted) onState("done");
  })();
  return () => controller.abort();
}

/** A 4xx, but for 429 (too many streams open at once: one closes soon), which is tried again like a dropped connection. */
const isClientError = (error: unknown) => {
  const status = (error as { status?: unknown })?.status;
  return typeof status === "number" && status < 500 && status !== 429;
};
