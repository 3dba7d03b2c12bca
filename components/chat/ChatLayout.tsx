"use client";

import { Activity, Menu, PanelRightClose, PanelRightOpen, Paperclip } from "lucide-react";
import { useMemo, type ReactNode } from "react";
import type { ModelPrices } from "@/lib/trace/timing";
import { Button } from "@/components/ui/Button";
import { HydrationBoundary } from "@/components/ui/HydrationBoundary";
import { JumpToLatest } from "@/components/ui/JumpToLatest";
import { useStickToBottom } from "@/components/ui/useStickToBottom";
import { ModelPricesContext } from "@/components/trace/ModelPrices";
import { TracePanel } from "@/components/trace/TracePanel";
import { usePermalinkOpensPanel } from "@/components/trace/usePermalink";
import { EmptyState } from "./EmptyState";
import { MessageList } from "./MessageList";
import type { ConversationRun } from "./useConversationRun";
import { useFileDrop } from "./useFileDrop";
import { useNewChat } from "./useNewChat";
import { usePanelLayout } from "./usePanelLayout";

/** What the layout gives the sidebar: "New chat", and closing the sidebar's drawer once a link is followed. */
interface SidebarControls {
  newChat: () => void;
  closeDrawer: () => void;
}

interface ChatLayoutProps {
  run: ConversationRun;
  title: string;
  prices: ModelPrices;
  /** The viewer's conversations, left of the chat; a drawer on narrow screens, opened from the header. */
  sidebar?: (controls: SidebarControls) => ReactNode;
  /** Header controls before the reasoning panel's own. */
  actions?: ReactNode;
  /** Under the header: what this page is, or what is missing. */
  banner?: ReactNode;
  /** Under the messages: where the viewer writes. */
  composer?: ReactNode;
  /** Files dropped on the chat, to attach to the next message; without it, the chat takes no files. */
  onDropFiles?: (files: File[]) => void;
}

/**
 * A conversation page: the header, the messages and the live reasoning panel beside them (a drawer on narrow
 * screens), with what a page adds around them. Ctrl+Shift+O opens a new chat from anywhere on the page.
 */
export function ChatLayout({ run, title, prices, sidebar, actions, banner, composer, onDropFiles }: ChatLayoutProps) {
  const { sidebarRef, panelRef, ...layout } = usePanelLayout();
  usePermalinkOpensPanel(layout.openPanel);
  const newChat = useNewChat(layout.closeDrawer);
  return (
    <div className="flex h-dvh overflow-hidden bg-white text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
      {sidebar && (
        <div
          ref={sidebarRef}
          className={`${layout.drawer === "sidebar" ? "fixed inset-y-0 left-0 z-40 flex w-72 shadow-2xl" : "hidden"} shrink-0 border-r border-zinc-200 bg-white lg:static lg:z-auto lg:flex lg:w-64 lg:shadow-none dark:border-zinc-800 dark:bg-zinc-950`}
          data-testid="sidebar"
        >
          {sidebar({ newChat, closeDrawer: layout.closeDrawer })}
        </div>
      )}

      <main className="flex min-w-0 flex-1 flex-col">
        <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 dark:border-zinc-800">
          {sidebar && (
            <Button
              variant="quiet"
              size="icon"
              onClick={() => layout.setDrawer("sidebar")}
              aria-label="Open conversations"
              className="lg:hidden"
            >
              <Menu className="size-5" aria-hidden />
            </Button>
          )}
          <h2 className="min-w-0 flex-1 truncate text-sm font-medium" data-testid="conversation-title">
            {title}
          </h2>
          {run.connection === "reconnecting" && (
            <span className="text-xs text-amber-700 dark:text-amber-400">Reconnecting…</span>
          )}
          {actions}
          <Button
            variant="quiet"
            onClick={() => layout.setDrawer("panel")}
            aria-label="Trace: open the reasoning panel"
            className="lg:hidden"
          >
            <Activity className="size-4" aria-hidden /> Trace
          </Button>
          <Button
            variant="quiet"
            size="icon"
            onClick={layout.toggleCollapsed}
            aria-label={layout.collapsed ? "Show the reasoning panel" : "Hide the reasoning panel"}
            className="max-lg:hidden"
          >
            {layout.collapsed ? (
              <PanelRightOpen className="size-5" aria-hidden />
            ) : (
              <PanelRightClose className="size-5" aria-hidden />
            )}
          </Button>
        </header>
        {banner}

        <div className="flex min-h-0 flex-1">
          <ChatColumn run={run} onDropFiles={onDropFiles}>
            {composer}
          </ChatColumn>

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
              <ModelPricesContext.Provider value={prices}>
                <TracePanel
                  trace={run.trace}
                  tools={run.tools}
                  runStarts={run.runStarts}
                  onClose={layout.drawer === "panel" ? layout.closeDrawer : undefined}
                />
              </ModelPricesContext.Provider>
            </div>
          </div>
        </div>
      </main>

      {layout.drawer !== "none" && (
        <div aria-hidden className="fixed inset-0 z-30 bg-black/40 lg:hidden" onClick={layout.closeDrawer} />
      )}
    </div>
  );
}

/** The messages, following the end of a live run, with the run's problem and what goes under them. */
function ChatColumn({
  run,
  onDropFiles,
  children,
}: {
  run: ConversationRun;
  onDropFiles?: (files: File[]) => void;
  children: ReactNode;
}) {
  const { messages, trace, runStarts, problem, send } = run;
  const { ref, onScroll, showJump, jumpToLatest } = useStickToBottom<HTMLDivElement>(
    `${trace.lastEventId}:${messages.length}`,
  );
  const drop = useFileDrop(onDropFiles);
  const list = useMemo(() => ({ messages, runs: trace.runs, runStarts }), [messages, trace.runs, runStarts]);
  return (
    <section aria-label="Chat" className="relative flex min-w-0 flex-1 flex-col" {...drop.handlers}>
      {drop.over && (
        <div
          className="pointer-events-none absolute inset-2 z-20 grid place-items-center rounded-2xl border-2 border-dashed border-emerald-600 bg-emerald-50/90 dark:border-emerald-500 dark:bg-emerald-950/90"
          data-testid="drop-zone"
        >
          <p className="flex items-center gap-2 text-sm font-medium text-emerald-900 dark:text-emerald-100">
            <Paperclip className="size-5" aria-hidden /> Drop the files to attach them to your message
          </p>
        </div>
      )}
      <div
        ref={ref}
        onScroll={onScroll}
        className="flex min-h-0 flex-1 flex-col overflow-y-auto"
        data-testid="chat-scroll"
      >
        {messages.length === 0 ? (
          <EmptyState onPick={(prompt) => void send(prompt)} />
        ) : (
          // The composer and controls respond before a long conversation has hydrated.
          <HydrationBoundary content={MessageList} props={list} />
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
      {children}
    </section>
  );
}
