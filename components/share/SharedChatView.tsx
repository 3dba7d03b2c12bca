"use client";

import type { InitialView } from "@/lib/conversations/initial-view";
import { ChatLayout } from "@/components/chat/ChatLayout";
import { useConversationRun } from "@/components/chat/useConversationRun";
import { useConversationViewer } from "@/components/chat/useConversationViewer";
import { TraceViewerContext } from "@/components/trace/TraceContext";
import { ExportLinks } from "./ExportLinks";
import { SharedBanner } from "./SharedBanner";

interface SharedChatViewProps {
  initial: InitialView;
  token: string;
  /** The labels annotations may have, and the viewer's author key in this conversation when it is known. */
  review: { labels: string[]; authorKey?: string };
}

/**
 * A conversation seen through its share link: read-only (no sidebar, no composer, no owner's actions on its
 * tools), following a live run, open to review, and a way to continue it in one's own chats.
 */
export function SharedChatView({ initial, token, review }: SharedChatViewProps) {
  const run = useConversationRun({ initial, shareToken: token });
  const viewer = useConversationViewer({
    source: run.source,
    pagePath: `/s/${encodeURIComponent(token)}`,
    owner: false,
    tools: run.tools,
    review,
  });

  return (
    <TraceViewerContext.Provider value={viewer}>
      <ChatLayout
        run={run}
        title={initial.title}
        prices={initial.prices}
        actions={run.source && <ExportLinks source={run.source} />}
        banner={<SharedBanner token={token} />}
      />
    </TraceViewerContext.Provider>
  );
}
