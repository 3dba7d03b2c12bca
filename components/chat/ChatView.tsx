"use client";

import { Activity, Link2, Menu, PanelRightClose, PanelRightOpen } from "lucide-react";
import { useRouter } from "next/navigation";
import { Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, type ConversationPage } from "@/lib/api/client";
import type { InitialView } from "@/lib/conversations/initial-view";
import { ExportLinks } from "@/components/share/ExportLinks";
import { ShareDialog } from "@/components/share/ShareDialog";
import { SharedBanner } from "@/components/share/SharedBanner";
import { JumpToLatest } from "@/components/ui/JumpToLatest";
import { useStickToBottom } from "@/components/ui/useStickToBottom";
import { OwnTraceContext } from "@/components/tools/LibraryActions";
import { TracePanel } from "@/components/trace/TracePanel";
import { TraceViewerContext, type TraceViewer } from "@/components/trace/TraceContext";
import { ModelPricesContext, NO_PRICES } from "@/components/trace/ModelPrices";
import { usePermalinkOpensPanel } from "@/components/trace/usePermalink";
import { Composer } from "./Composer";
import { EmptyState } from "./EmptyState";
import { MessageList } from "./MessageList";
import { ModelBanner } from "./ModelBanner";
import { Sidebar } from "./Sidebar";
import { useConversationList } from "./useConversationList";
import { usePanelLayout } from "./usePanelLayout";
import { useConversationRun } from "./useConversationRun";

interface ChatViewProps {
  initial: InitialView | null;
  /** The agent profiles to choose from, and the one a new conversation gets. */
  profiles?: { names: string[]; defaultProfile: string };
  conversations: ConversationPage;
  modelConfigured: boolean;
  /** Set on a shared page: read-only, without sidebar or composer, following through the share token. */
  share?: { token: string };
  /** The labels annotations may have, and the viewer's author key in this conversation when it is known. */
  review: { labels: string[]; authorKey?: string };
}

/** The chat page: sidebar, messages and composer, and the live reasoning panel. */
export function ChatView({
  initial,
  profiles,
  conversations: firstPage,
  modelConfigured,
  share,
  review,
}: ChatViewProps) {
  const router = useRouter();
  const conversationId = initial?.id ?? null;
  const list = useConversationList(firstPage);
  const [profile, setProfile] = useState(initial?.profile ?? profiles?.defaultProfile);
  const { messages, trace, tools, runStarts, running, connection, problem, send, stop } = useConversationRun({
    initial,
    shareToken: share?.token,
    profile,
    onSent: list.refresh,
  });
  const chooseProfile = useCallback(
    (name: string) => {
      setProfile(name);
      // An existing conversation keeps the choice for its next runs; a new one gets it when it is created.
      if (conversationId) void api.setProfile(conversationId, name);
    },
    [conversationId],
  );
  const title =
    list.conversations.find((conversation) => conversation.id === conversationId)?.title ??
    initial?.title ??
    "New chat";
  const [sharing, setSharing] = useState(false);
  const [authorKey, setAuthorKey] = useState(review.authorKey);
  const viewer = useMemo<TraceViewer | null>(() => {
    const reviewing = { labels: review.labels, authorKey, learnAuthorKey: setAuthorKey };
    const toolIdOf = (name: string) => tools.findLast((tool) => tool.name === name)?.id;
    if (share)
      return {
        source: { shareToken: share.token },
        pagePath: `/s/${encodeURIComponent(share.token)}`,
        owner: false,
        toolIdOf,
        review: reviewing,
      };
    return conversationId
      ? { source: { conversationId }, pagePath: `/c/${conversationId}`, owner: true, toolIdOf, review: reviewing }
      : null;
  }, [share, conversationId, review.labels, authorKey, tools]);
  const { sidebarRef, panelRef, ...layout } = usePanelLayout();
  usePermalinkOpensPanel(layout.openPanel);
  const composer = useRef<HTMLTextAreaElement>(null);
  const {
    ref: chatRef,
    onScroll: onChatScroll,
    showJump,
    jumpToLatest,
  } = useStickToBottom<HTMLDivElement>(`${trace.lastEventId}:${messages.length}`);

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

  const closeSharing = useCallback(() => setSharing(false), []);
  const source = share ? { shareToken: share.token } : conversationId ? { conversationId } : null;

  return (
    <OwnTraceContext.Provider value={share ? null : conversationId}>
      <TraceViewerContext.Provider value={viewer}>
        <div className="flex h-dvh overflow-hidden bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
          {!share && (
            <div
              ref={sidebarRef}
              className={`${layout.drawer === "sidebar" ? "fixed inset-y-0 left-0 z-40 flex w-72 shadow-2xl" : "hidden"} shrink-0 border-r border-zinc-200 bg-white lg:static lg:z-auto lg:flex lg:w-64 lg:shadow-none dark:border-zinc-800 dark:bg-zinc-950`}
              data-testid="sidebar"
            >
              <Sidebar
                list={list}
                activeId={conversationId}
                onNewChat={newChat}
                onDeletedActive={newChat}
                onNavigate={() => layout.setDrawer("none")}
              />
            </div>
          )}

          <main className="flex min-w-0 flex-1 flex-col">
            <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
              {!share && (
                <button
                  type="button"
                  onClick={() => layout.setDrawer("sidebar")}
                  aria-label="Open conversations"
                  className="rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 lg:hidden dark:text-zinc-300 dark:hover:bg-zinc-800"
                >
                  <Menu className="size-5" aria-hidden />
                </button>
              )}
              <h2 className="min-w-0 flex-1 truncate text-sm font-medium" data-testid="conversation-title">
                {title}
              </h2>
              {connection === "reconnecting" && (
                <span className="text-xs text-amber-700 dark:text-amber-400">Reconnecting…</span>
              )}
              {source && <ExportLinks source={source} />}
              {conversationId && !share && (
                <button
                  type="button"
                  onClick={() => setSharing(true)}
                  className="inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
                >
                  <Link2 className="size-4" aria-hidden /> Share
                </button>
              )}
              <button
                type="button"
                onClick={() => layout.setDrawer("panel")}
                aria-label="Trace: open the reasoning panel"
                className="inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 lg:hidden dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                <Activity className="size-4" aria-hidden /> Trace
              </button>
              <button
                type="button"
                onClick={layout.toggleCollapsed}
                aria-label={layout.collapsed ? "Show the reasoning panel" : "Hide the reasoning panel"}
                className="hidden rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 lg:inline-flex dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                {layout.collapsed ? (
                  <PanelRightOpen className="size-5" aria-hidden />
                ) : (
                  <PanelRightClose className="size-5" aria-hidden />
                )}
              </button>
            </header>
            {share && <SharedBanner token={share.token} />}
            {!modelConfigured && <ModelBanner />}

            <div className="flex min-h-0 flex-1">
              <section aria-label="Chat" className="relative flex min-w-0 flex-1 flex-col">
                <div
                  ref={chatRef}
                  onScroll={onChatScroll}
                  className="flex min-h-0 flex-1 flex-col overflow-y-auto"
                  data-testid="chat-scroll"
                >
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
                  <p
                    role="alert"
                    className="mx-auto mb-2 w-full max-w-3xl rounded-lg border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-900 dark:bg-rose-950/50 dark:text-rose-100"
                  >
                    {problem}
                  </p>
                )}
                {!share && (
                  <Composer
                    ref={composer}
                    profile={
                      profiles && profile
                        ? { names: profiles.names, current: profile, onChange: chooseProfile }
                        : undefined
                    }
                    running={running}
                    onSend={send}
                    onStop={() => void stop()}
                  />
                )}
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
                  <ModelPricesContext.Provider value={initial?.prices ?? NO_PRICES}>
                    <TracePanel
                      trace={trace}
                      tools={tools}
                      runStarts={runStarts}
                      onClose={layout.drawer === "panel" ? () => layout.setDrawer("none") : undefined}
                    />
                  </ModelPricesContext.Provider>
                </div>
              </div>
            </div>
          </main>

          {layout.drawer !== "none" && (
            <div
              aria-hidden
              className="fixed inset-0 z-30 bg-black/40 lg:hidden"
              onClick={() => layout.setDrawer("none")}
            />
          )}
          {sharing && conversationId && <ShareDialog conversationId={conversationId} onClose={closeSharing} />}
        </div>
      </TraceViewerContext.Provider>
    </OwnTraceContext.Provider>
  );
}
