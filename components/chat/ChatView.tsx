"use client";

import { Activity, Link2, Menu, PanelRightClose, PanelRightOpen } from "lucide-react";
import { useRouter } from "next/navigation";
import { Suspense, useCallback, useEffect, useRef, useState } from "react";
import { errorMessage, followEvents, readEventStream, type FollowState } from "@/lib/events/client";
import { emptyTrace, isRunning, type TraceEvent } from "@/lib/trace/state";
import type { InitialView } from "@/lib/trace/view";
import { ExportLinks } from "@/components/share/ExportLinks";
import { ShareDialog } from "@/components/share/ShareDialog";
import { SharedBanner } from "@/components/share/SharedBanner";
import { JumpToLatest } from "@/components/ui/JumpToLatest";
import { useStickToBottom } from "@/components/ui/useStickToBottom";
import { TracePanel } from "@/components/trace/TracePanel";
import { Composer } from "./Composer";
import { EmptyState } from "./EmptyState";
import { MessageList, type ChatMessage } from "./MessageList";
import { ModelBanner } from "./ModelBanner";
import { Sidebar, type ConversationSummary } from "./Sidebar";
import { usePanelLayout } from "./usePanelLayout";
import { useTrace } from "./useTrace";

interface ChatViewProps {
  initial: InitialView | null;
  conversations: ConversationSummary[];
  modelConfigured: boolean;
  /** Set on a shared page: read-only, without sidebar or composer, following through the share token. */
  share?: { token: string };
}

/** The chat page: sidebar, messages and composer, and the live reasoning panel. */
export function ChatView({ initial, conversations: initialConversations, modelConfigured, share }: ChatViewProps) {
  const router = useRouter();
  const conversationId = initial?.id ?? null;
  const [title, setTitle] = useState(initial?.title ?? "New chat");
  const [conversations, setConversations] = useState(initialConversations);
  const [messages, setMessages] = useState<ChatMessage[]>(initial?.messages ?? []);
  const [sharing, setSharing] = useState(false);
  const apiBase = share ? `/api/share/${share.token}` : `/api/conversations/${conversationId}`;
  const [problem, setProblem] = useState<string | null>(null);
  const [connection, setConnection] = useState<FollowState>("done");
  const { trace, tools, runStarts, push, lastSeenId } = useTrace(
    initial?.trace ?? emptyTrace,
    Object.fromEntries((initial?.runs ?? []).map((run) => [run.id, new Date(run.createdAt).toISOString()])),
  );
  const { sidebarRef, panelRef, ...layout } = usePanelLayout();
  const composer = useRef<HTMLTextAreaElement>(null);
  const stopFollowing = useRef<() => void>(() => {});
  const unmounted = useRef(new AbortController());
  const running = isRunning(trace);
  const { ref: chatRef, onScroll: onChatScroll, showJump, jumpToLatest } = useStickToBottom<HTMLDivElement>(`${trace.lastEventId}:${messages.length}`);

  const refreshConversations = useCallback(async () => {
    const response = await fetch("/api/conversations", { cache: "no-store" });
    if (!response.ok) return;
    const list: ConversationSummary[] = await response.json();
    setConversations(list);
    setTitle((current) => list.find((conversation) => conversation.id === conversationId)?.title ?? current);
  }, [conversationId]);

  // Attach each run to the message that started it: a message sent from here learns its run from run_started.
  const onEvent = useCallback(
    (event: TraceEvent) => {
      if (event.type === "run_started") {
        setMessages((list) => list.map((message) => (message.runId === null ? { ...message, id: event.messageId, runId: event.runId } : message)));
      }
      push(event);
    },
    [push],
  );

  const follow = useCallback(
    (id: string) => {
      stopFollowing.current();
      stopFollowing.current = followEvents(`${share ? `/api/share/${share.token}` : `/api/conversations/${id}`}/events`, lastSeenId(), onEvent, setConnection);
    },
    [lastSeenId, onEvent, share],
  );

  // Opened during a run (or reloaded): show what is stored, then keep following live.
  useEffect(() => {
    if (initial?.activeRunId) follow(initial.id);
    const leaving = unmounted.current;
    return () => {
      stopFollowing.current();
      leaving.abort();
    };
  }, [initial, follow]);

  useEffect(() => composer.current?.focus(), []);

  const newChat = useCallback(() => {
    layout.setDrawer("none");
    router.push("/");
  }, [layout, router]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "o") {
        event.preventDefault();
        newChat();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [newChat]);

  const send = async (content: string): Promise<boolean> => {
    setProblem(null);
    let id = conversationId;
    if (!id) {
      const created = await fetch("/api/conversations", { method: "POST" });
      if (!created.ok) {
        setProblem(await errorMessage(created));
        return false;
      }
      id = ((await created.json()) as { id: string }).id;
    }
    const optimistic: ChatMessage = { id: `local-${Date.now()}`, runId: null, role: "user", content };
    setMessages((list) => [...list, optimistic]);
    const response = await fetch(`/api/conversations/${id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content }),
    });
    if (!response.ok) {
      setMessages((list) => list.filter((message) => message !== optimistic));
      setProblem(await errorMessage(response));
      return false;
    }
    if (!conversationId) {
      // A new chat lives at its own address: that page shows what is stored and follows the run from there.
      void response.body?.cancel();
      router.replace(`/c/${id}`);
      return true;
    }
    void refreshConversations();
    const conversation = id;
    // The POST answers with the run's events; if that connection drops, /events resumes from the last one seen.
    readEventStream(response, onEvent, unmounted.current.signal).catch(() => unmounted.current.signal.aborted || follow(conversation));
    return true;
  };

  const stop = async () => {
    if (!conversationId) return;
    const response = await fetch(`/api/conversations/${conversationId}/cancel`, { method: "POST" });
    if (!response.ok && response.status !== 409) setProblem(await errorMessage(response));
  };

  const drawerOpen = layout.drawer !== "none";
  return (
    <div className="flex h-dvh overflow-hidden bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
      {!share && <div
        ref={sidebarRef}
        className={`${layout.drawer === "sidebar" ? "fixed inset-y-0 left-0 z-40 flex w-72 shadow-2xl" : "hidden"} shrink-0 border-r border-zinc-200 bg-white lg:static lg:z-auto lg:flex lg:w-64 lg:shadow-none dark:border-zinc-800 dark:bg-zinc-950`}
        data-testid="sidebar"
      >
        <Sidebar
          conversations={conversations}
          activeId={conversationId}
          onNewChat={newChat}
          onChanged={() => void refreshConversations()}
          onDeletedActive={newChat}
          onNavigate={() => layout.setDrawer("none")}
        />
      </div>}

      <main className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
          {!share && (
            <button type="button" onClick={() => layout.setDrawer("sidebar")} aria-label="Open conversations" className="rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 lg:hidden dark:text-zinc-300 dark:hover:bg-zinc-800">
              <Menu className="size-5" aria-hidden />
            </button>
          )}
          <h2 className="min-w-0 flex-1 truncate text-sm font-medium" data-testid="conversation-title">
            {title}
          </h2>
          {connection === "reconnecting" && <span className="text-xs text-amber-600 dark:text-amber-400">Reconnecting…</span>}
          {conversationId && <ExportLinks base={apiBase} />}
          {conversationId && !share && (
            <button type="button" onClick={() => setSharing(true)} className="inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
              <Link2 className="size-4" aria-hidden /> Share
            </button>
          )}
          <button type="button" onClick={() => layout.setDrawer("panel")} aria-label="Open the reasoning panel" className="inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 lg:hidden dark:text-zinc-300 dark:hover:bg-zinc-800">
            <Activity className="size-4" aria-hidden /> Trace
          </button>
          <button
            type="button"
            onClick={layout.toggleCollapsed}
            aria-label={layout.collapsed ? "Show the reasoning panel" : "Hide the reasoning panel"}
            className="hidden rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 lg:inline-flex dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            {layout.collapsed ? <PanelRightOpen className="size-5" aria-hidden /> : <PanelRightClose className="size-5" aria-hidden />}
          </button>
        </header>
        {share && <SharedBanner token={share.token} />}
        {!modelConfigured && <ModelBanner />}

        <div className="flex min-h-0 flex-1">
          <section aria-label="Chat" className="relative flex min-w-0 flex-1 flex-col">
            <div ref={chatRef} onScroll={onChatScroll} className="flex min-h-0 flex-1 flex-col overflow-y-auto" data-testid="chat-scroll">
              {messages.length === 0 ? (
                <EmptyState onPick={(prompt) => void send(prompt)} />
              ) : (
                // Its own hydration boundary, so the composer and controls respond first.
                <Suspense>
                  <MessageList messages={messages} runs={trace.runs} runStarts={runStarts} />
                </Suspense>
              )}
            </div>
            {showJump && <JumpToLatest onClick={jumpToLatest} />}
            {problem && (
              <p role="alert" className="mx-auto mb-2 w-full max-w-3xl rounded-lg border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900 dark:bg-rose-950/50 dark:text-rose-100">
                {problem}
              </p>
            )}
            {!share && <Composer ref={composer} running={running} onSend={send} onStop={() => void stop()} />}
          </section>

          <div
            ref={panelRef}
            style={{ "--panel-width": `${layout.width}px` } as React.CSSProperties}
            className={`${layout.drawer === "panel" ? "fixed inset-y-0 right-0 z-40 flex w-[min(100vw,30rem)] shadow-2xl" : "hidden"} border-l border-zinc-200 bg-white lg:relative lg:z-auto lg:w-[var(--panel-width)] lg:shadow-none dark:border-zinc-800 dark:bg-zinc-950 ${layout.collapsed ? "lg:hidden" : "lg:flex"}`}
            data-testid="panel"
          >
            <div
              role="separator"
              aria-orientation="vertical"
              aria-label="Resize the reasoning panel"
              onPointerDown={layout.startResize}
              className="absolute inset-y-0 -left-1 z-10 hidden w-2 cursor-col-resize hover:bg-emerald-400/40 lg:block"
            />
            <div className="min-w-0 flex-1">
              <TracePanel trace={trace} tools={tools} runStarts={runStarts} onClose={layout.drawer === "panel" ? () => layout.setDrawer("none") : undefined} />
            </div>
          </div>
        </div>
      </main>

      {drawerOpen && <div aria-hidden className="fixed inset-0 z-30 bg-black/40 lg:hidden" onClick={() => layout.setDrawer("none")} />}
      {sharing && conversationId && <ShareDialog conversationId={conversationId} onClose={() => setSharing(false)} />}
    </div>
  );
}
