"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, problemText, type ConversationFile, type ConversationSource } from "@/lib/api/client";
import type { RegisteredToolView } from "@/lib/contract/events";
import { startsSegment } from "@/lib/contract/log";
import { followEvents, type FollowState } from "@/lib/api/event-stream";
import { applyEvents, emptyTrace, isRunning, segmentOf, type TraceEvent } from "@/lib/trace/state";
import type { InitialView } from "@/lib/conversations/initial-view";
import type { ChatMessage } from "./MessageList";

/** Shown to a viewer whose live view the server cut: the link was revoked (or its conversation deleted). */
const SHARE_GONE =
  "This link no longer works: it was revoked, or its conversation deleted. What it showed until then stays here.";

/**
 * A conversation in the browser: its messages, its trace and its run (send, stop, follow live, reconnect). Events go
 * through the reducer shared with the server, those of one frame together: one render per frame, not per delta.
 */
export function useConversationRun({
  initial,
  shareToken,
  profile,
  onSent,
}: {
  initial: InitialView | null;
  shareToken?: string;
  profile?: string;
  onSent?: () => void;
}) {
  const router = useRouter();
  const conversationId = initial?.id ?? null;
  const source = useMemo<ConversationSource | null>(
    () => (shareToken ? { shareToken } : conversationId ? { conversationId } : null),
    [shareToken, conversationId],
  );

  const [messages, setMessages] = useState<ChatMessage[]>(initial?.messages ?? []);
  const [trace, setTrace] = useState(initial?.trace ?? emptyTrace);
  const [runStarts, setRunStarts] = useState<Record<string, string>>(() =>
    Object.fromEntries((initial?.runs ?? []).map((run) => [run.id, new Date(run.createdAt).toISOString()])),
  );
  const [connection, setConnection] = useState<FollowState>("done");
  const [problem, setProblem] = useState<string | null>(null);

  const pending = useRef<TraceEvent[]>([]);
  /** After a resync: the next events rebuild the trace from nothing (till then, the old one stays on screen). */
  const rebuilding = useRef(false);
  const frame = useRef<number | null>(null);
  const lastSeen = useRef(trace.lastEventId);
  /** Sent on reconnect, so that the server can tell when what was shown here is not the log's any more. */
  const segment = useRef(trace.segment);
  const stopFollowing = useRef<() => void>(() => {});

  const flush = useCallback(() => {
    frame.current = null;
    const batch = pending.current;
    if (batch.length === 0) return;
    pending.current = [];
    const from = rebuilding.current ? emptyTrace : undefined;
    rebuilding.current = false;
    setTrace((state) => applyEvents(from ?? state, batch));
  }, []);

  const onEvent = useCallback(
    (event: TraceEvent) => {
      // A segment named on reconnect is the latest one seen, never an older one read again.
      if (startsSegment(event) && event.id > lastSeen.current) segment.current = segmentOf(event);
      lastSeen.current = Math.max(lastSeen.current, event.id);
      if (event.type === "run_started") {
        // A message sent from here learns its id and its run from run_started (not from an earlier run's, replayed).
        setMessages((list) =>
          list.some((message) => message.id === event.messageId)
            ? list
            : list.map((message) =>
                message.runId === null ? { ...message, id: event.messageId, runId: event.runId } : message,
              ),
        );
        setRunStarts((starts) =>
          starts[event.runId] ? starts : { ...starts, [event.runId]: new Date().toISOString() },
        );
      }
      pending.current.push(event);
      // Hidden tabs get no animation frames: apply at once there.
      if (document.hidden) flush();
      else frame.current ??= requestAnimationFrame(flush);
    },
    [flush],
  );

  /** The trace rebuilt from the log's first event: what was shown past the stored log is being replaced. */
  const onResync = useCallback(() => {
    pending.current = [];
    lastSeen.current = 0;
    segment.current = emptyTrace.segment;
    rebuilding.current = true;
  }, []);

  /**
   * Read `first` (the POST's stream) or open /events, and keep following: the run, then whatever the log gets next
   * (reviews as people write them, a run started in another tab).
   */
  const follow = useCallback(
    (first?: Response) => {
      if (!source) return;
      stopFollowing.current();
      stopFollowing.current = followEvents({
        first,
        reconnect: (after, signal) => api.events(source, after, segment.current, signal),
        lastSeenId: () => lastSeen.current,
        onEvent,
        onResync,
        onState: setConnection,
        onRefused: (error) => setProblem("shareToken" in source ? SHARE_GONE : problemText(error)),
        watch: true,
      });
    },
    [source, onEvent, onResync],
  );

  /** A new chat's conversation, created once, by whichever needs it first: an attached file or the first message. */
  const created = useRef<{ id: Promise<string>; profile?: string } | null>(null);
  const ensureConversation = useCallback((): Promise<string> => {
    if (conversationId) return Promise.resolve(conversationId);
    if (!created.current) {
      const id = api.createConversation(profile).then(
        (conversation) => conversation.id,
        (error) => {
          created.current = null;
          throw error;
        },
      );
      created.current = { id, profile };
    }
    return created.current.id;
  }, [conversationId, profile]);

  // What the page showed is stored; follow from there, live.
  useEffect(() => {
    follow();
    return () => {
      stopFollowing.current();
      if (frame.current !== null) cancelAnimationFrame(frame.current);
    };
  }, [follow]);

  const send = useCallback(
    async (content: string, files: ConversationFile[] = [], plan?: boolean): Promise<boolean> => {
      setProblem(null);
      const optimistic: ChatMessage = { id: `local-${Date.now()}`, runId: null, role: "user", content, files };
      try {
        const id = await ensureConversation();
        // A new chat created for an attached file gets the profile chosen since.
        const draft = created.current;
        if (draft && profile !== undefined && draft.profile !== profile) {
          await api.setProfile(id, profile);
          draft.profile = profile;
        }
        setMessages((list) => [...list, optimistic]);
        const fileIds = files.map((file) => file.id);
        const response = await api.sendMessage(id, content, fileIds, plan).catch((error) => {
          setMessages((list) => list.filter((message) => message !== optimistic));
          throw error;
        });
        if (!conversationId) {
          // A new chat lives at its own address: that page shows what is stored and follows the run from there.
          void response.body?.cancel();
          router.replace(`/c/${id}`);
          return true;
        }
        onSent?.();
        follow(response);
        return true;
      } catch (error) {
        setProblem(problemText(error));
        return false;
      }
    },
    [conversationId, ensureConversation, follow, onSent, profile, router],
  );

  const stop = useCallback(async () => {
    if (!conversationId) return;
    try {
      await api.cancelRun(conversationId);
    } catch (error) {
      // 409: the run ended on its own meanwhile.
      if ((error as { status?: number }).status !== 409) setProblem(problemText(error));
    }
  }, [conversationId]);

  const tools = useMemo(() => {
    const registered: RegisteredToolView[] = [];
    for (const run of trace.runs)
      for (const step of run.steps)
        for (const call of step.calls) if (call.registered) registered.push(call.registered);
    return registered;
  }, [trace.runs]);

  return {
    source,
    messages,
    trace,
    tools,
    runStarts,
    running: isRunning(trace),
    connection,
    problem,
    send,
    stop,
    ensureConversation,
  };
}

export type ConversationRun = ReturnType<typeof useConversationRun>;
