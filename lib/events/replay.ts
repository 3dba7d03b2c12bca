import { databaseClock } from "@/lib/db/driver/clock";
import { lastStoredEvent, listEvents } from "@/lib/db/queries/events";
import { runningRun } from "@/lib/db/queries/runs";
import type { RunChannel } from "./channel";
import { sseResponse, type SseSink } from "./sse";
import { storedFeed, type StoredFollower } from "./stored-feed";
import { runAwaitingItsEnd, runEndGraceMs } from "./run-end";
import type { SequencedEvent } from "@/lib/contract/events";
import { startsSegment, type SegmentStart } from "@/lib/contract/log";

/**
 * A conversation's events with seq > after as SSE, each once and in order: the stored ones, then the run's as they
 * happen, from its channel here or from the store; `resync` when shown events are not the log's (docs/architecture.md).
 */
export function conversationEventStream(
  conversationId: string,
  { after, segment }: { after: number; segment?: SegmentStart },
  {
    live,
    watch = false,
    cutWhen,
    onClose,
  }: {
    /** The run's channel, when this instance executes it. */
    live?: RunChannel;
    /**
     * Keep following after the run ends, or when none runs: every event stored later (reviews, the next runs, from
     * any tab or instance) until the client leaves. Otherwise the stream ends with the run, or at once.
     */
    watch?: boolean;
    /** Watches for a reason to cut the stream (its share link revoked): calls `cut` then; returns the stop function. */
    cutWhen?: (cut: () => void) => () => void;
    /** Called once the stream has closed, whichever way. */
    onClose?: () => void;
  } = {},
): Response {
  return sseResponse((client) => {
    // With the segment the client saw last, the log is read from its start (with a token, from the event that began
    // it, whose token is checked too), to check the client's copy against it.
    const from = segment ? segment.id - (segment.token === undefined ? 0 : 1) : after;
    const sink = segment && from < after ? skippingSeen(client, after, segment) : client;
    const stopFollowing = live
      ? followChannel(conversationId, from, live, sink, watch)
      : followStore(conversationId, from, sink, watch);
    // Cut, not ended: the client reconnects, and is told why (a 404 for a revoked link).
    const stopWatching = cutWhen?.(() => client.fail());
    return () => {
      stopFollowing();
      stopWatching?.();
      onClose?.();
    };
  });
}

/**
 * The events up to `after` are the client's already and are not sent again, unless the log began a segment there that
 * the client did not see: then `resync` (docs/architecture.md, "Segments and resync"). The token is checked too.
 */
function skippingSeen(sink: SseSink, after: number, segment: SegmentStart): SseSink {
  let diverged = false;
  const seen = ({ seq, event }: SequencedEvent) =>
    seq === segment.id && segment.token !== undefined
      ? startsSegment(event) && event.segment === segment.token
      : !startsSegment(event);
  return {
    ...sink,
    send(event) {
      if (diverged) return;
      if (event.seq > after) return sink.send(event);
      if (seen(event)) return;
      diverged = true;
      sink.resync();
    },
  };
}

function followChannel(
  conversationId: string,
  after: number,
  live: RunChannel,
  sink: SseSink,
  watch: boolean,
): () => void {
  let lastSent = after;
  let replaying = true;
  let liveEnded = false;
  let left = false;
  let stopFollowingStore: (() => void) | undefined;
  const end = () => {
    if (!left && !watch) return sink.close();
    // The run left this instance (its lease lost). Sent events that were never stored are not the log's: the
    // client reads the log again. Sent nothing unstored: follow the run from the store, where it goes on.
    if (left && lastSent > live.storedThrough) return sink.resync();
    stopFollowingStore = followStore(conversationId, lastSent, sink, watch);
  };
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
    (runLeft) => {
      liveEnded = true;
      left = runLeft;
      if (!replaying) end();
    },
  );
  listEvents(conversationId, after, live.firstSeq).then(
    (stored) => {
      for (const event of stored) send(event);
      for (const event of subscription.backlog) send(event);
      for (const event of heldBack) send(event);
      replaying = false;
      if (liveEnded) end();
    },
    (error) => fail(error, sink),
  );
  return () => {
    subscription.unsubscribe();
    stopFollowingStore?.();
  };
}

/**
 * The stored events, and, while a run is running on another instance, the events it stores, through this
 * instance's feed of stored events (announced by LISTEN/NOTIFY, polled every second), until the run's
 * run_finished. A run taken over by a third instance keeps its id, so its follower goes on without a break.
 * Watching, every event stored later, until the client leaves.
 */
function followStore(conversationId: string, after: number, sink: SseSink, watch = false): () => void {
  if (watch) return watchStore(conversationId, after, sink);
  let closed = false;
  let stopFollowing = () => {};
  let endedAt: number | undefined;
  const finish = () => {
    if (closed) return;
    closed = true;
    stopFollowing();
    sink.close();
  };

  // The run to follow, if any, is known before the stored events are read: none, and the replay is all there is.
  // A run that is no longer running but has not stored its run_finished yet is followed for it; a client that has
  // all it stored has seen it (no event of it comes before a newer run's).
  const runToFollow = async (): Promise<{ runId?: string; seen: boolean }> => {
    const running = await runningRun(conversationId);
    if (running) return { runId: running.id, seen: false };
    const last = await lastStoredEvent(conversationId);
    return { runId: runAwaitingItsEnd(last, databaseClock.now()), seen: last !== undefined && after >= last.lastSeq };
  };
  runToFollow().then(
    ({ runId, seen }) => {
      if (closed) return;
      let seenRun = seen;
      const follower: StoredFollower = {
        after,
        deliver(events) {
          for (const event of events) {
            // A newer run began after the run's events: the run's end will not come (a new run ends the claim of one
            // that had not stored it), and the stream ends with the run, before the newer one.
            if (seenRun && event.event.runId !== runId && startsSegment(event.event)) return finish();
            seenRun ||= event.event.runId === runId;
            follower.after = event.seq;
            sink.send(event);
            if (event.event.type === "run_finished" && event.event.runId === runId) return finish();
          }
        },
        // A run stores its outcome before its run_finished, so a follower waits for that event once the run is no
        // longer running, as long as it may take; one whose last write failed never stores it (run-end.ts).
        idle() {
          endedAt ??= performance.now();
          if (performance.now() - endedAt > runEndGraceMs()) finish();
        },
      };
      if (runId) {
        stopFollowing = storedFeed.follow(conversationId, follower);
        return;
      }
      listEvents(conversationId, after).then(
        (events) => {
          for (const event of events) sink.send(event);
          finish();
        },
        (error) => fail(error, sink),
      );
    },
    (error) => fail(error, sink),
  );
  return finish;
}

/** Every event stored after `after`, as the feed reads them, for as long as the client stays. */
function watchStore(conversationId: string, after: number, sink: SseSink): () => void {
  const follower: StoredFollower = {
    after,
    deliver(events) {
      for (const event of events) sink.send(event);
      follower.after = events.at(-1)!.seq;
    },
    idle() {},
  };
  const stop = storedFeed.follow(conversationId, follower);
  return () => {
    stop();
    sink.close();
  };
}

/** The stream is cut, not ended: the client reconnects after the last event it got, instead of taking it for the end. */
function fail(error: unknown, sink: SseSink): void {
  console.error("Could not read events:", error);
  sink.fail();
}
