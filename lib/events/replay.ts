import { listEvents } from "@/lib/db/events";
import { notifications } from "@/lib/db/notifications";
import { runningRun } from "@/lib/db/runs";
import type { RunChannel } from "./channel";
import { sseResponse, type SseSink } from "./sse";
import type { SequencedEvent } from "./types";

/** A follower of a run on another instance reads the store at least this often, whatever it is told. */
const STORED_POLL_MS = 1_000;
/** How long a follower waits for the run_finished of a run no longer running before it stops waiting. */
const RUN_FINISHED_GRACE_MS = 2_000;

/**
 * A conversation's events with seq > after as SSE: the stored ones, then the live run's events as they happen,
 * ending with the run. Each event goes out once, in order, whatever the timing of the sources. A run this
 * instance executes is followed from its channel; a run another instance executes, from the store.
 */
export function conversationEventStream(conversationId: string, after: number, live: RunChannel | undefined): Response {
  return sseResponse((sink) => (live ? followChannel(conversationId, after, live, sink) : followStore(conversationId, after, sink)));
}

function followChannel(conversationId: string, after: number, live: RunChannel, sink: SseSink): () => void {
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
  const subscription = live.subscribe(
    after,
    (event) => (replaying ? heldBack.push(event) : send(event)),
    () => {
      liveEnded = true;
      if (!replaying) sink.close();
    },
  );
  listEvents(conversationId, after, live.firstSeq).then(
    (stored) => {
      for (const event of stored) send(event);
      for (const event of subscription.backlog) send(event);
      for (const event of heldBack) send(event);
      replaying = false;
      if (liveEnded) sink.close();
    },
    (error) => fail(error, sink),
  );
  return () => subscription.unsubscribe();
}

/**
 * The stored events, and, while a run is running on another instance, the events it stores: read again whenever
 * that instance announces a write (LISTEN/NOTIFY) and every second, until the run's run_finished. A run taken over
 * by a third instance keeps its id, so its follower goes on without a break.
 */
function followStore(conversationId: string, after: number, sink: SseSink): () => void {
  let lastSent = after;
  let closed = false;
  let reading = false;
  let readAgain = false;
  let followed: string | undefined;
  let endedAt: number | undefined;

  const read = async () => {
    if (reading) return void (readAgain = true);
    reading = true;
    try {
      do {
        readAgain = false;
        for (const event of await listEvents(conversationId, lastSent)) {
          if (closed) return;
          lastSent = event.seq;
          sink.send(event);
          if (event.event.type === "run_finished" && event.event.runId === followed) return finish();
        }
      } while (readAgain && !closed);
      if (!followed) return finish();
      // A run stores its outcome before its run_finished, so wait a little for that event once it is no longer
      // running; one whose last write failed never stores it, and its follower ends after the grace.
      if (await runningRun(conversationId)) return;
      endedAt ??= Date.now();
      if (Date.now() - endedAt > RUN_FINISHED_GRACE_MS) finish();
    } catch (error) {
      fail(error, sink);
      finish();
    } finally {
      reading = false;
    }
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    clearInterval(poll);
    sink.close();
  };

  // Listen before looking for the run, so that no announcement made meanwhile is missed.
  const unsubscribe = notifications.subscribe("events", (payload) => {
    if (payload.startsWith(`${conversationId} `)) void read();
  });
  const poll = setInterval(() => void read(), STORED_POLL_MS);
  runningRun(conversationId).then(
    (run) => {
      followed = run?.id;
      void read();
    },
    (error) => {
      fail(error, sink);
      finish();
    },
  );
  return finish;
}

function fail(error: unknown, sink: SseSink): void {
  console.error("Could not read events:", error);
  sink.close();
}
