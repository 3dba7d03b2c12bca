import { listEvents } from "@/lib/db/events";
import type { RunChannel } from "./channel";
import { sseResponse } from "./sse";
import type { SequencedEvent } from "./types";

/**
 * A conversation's events with seq > after as SSE: the stored ones, then, when a run is live, its events as they
 * happen, ending with the run. Each event goes out once, in order, whatever the timing of the two sources.
 */
export function conversationEventStream(conversationId: string, after: number, live: RunChannel | undefined): Response {
  return sseResponse((sink) => {
    let lastSent = after;
    let replaying = true;
    let liveEnded = false;
    const heldBack: SequencedEvent[] = [];
    const send = (event: SequencedEvent) => {
      if (event.seq <= lastSent) return;
      lastSent = event.seq;
      sink.send(event);
    };

    // Subscribe before reading the database, so that nothing emitted while it answers is missed.
    const subscription = live?.subscribe(
      after,
      (event) => (replaying ? heldBack.push(event) : send(event)),
      () => {
        liveEnded = true;
        if (!replaying) sink.close();
      },
    );
    listEvents(conversationId, after, live?.firstSeq).then(
      (stored) => {
        for (const event of stored) send(event);
        for (const event of subscription?.backlog ?? []) send(event);
        for (const event of heldBack) send(event);
        replaying = false;
        if (!live || liveEnded) sink.close();
      },
      (error) => {
        console.error("Could not read events:", error);
        sink.close();
      },
    );
    return () => subscription?.unsubscribe();
  });
}
