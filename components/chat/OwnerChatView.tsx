"use client";

import { Link2 } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, type ConversationPage } from "@/lib/api/client";
import type { Visitor } from "@/lib/accounts/account";
import type { InitialView } from "@/lib/conversations/initial-view";
import { ExportLinks } from "@/components/share/ExportLinks";
import { ShareDialog } from "@/components/share/ShareDialog";
import { Button } from "@/components/ui/Button";
import { OwnTraceContext } from "@/components/tools/LibraryActions";
import { NO_PRICES } from "@/components/trace/ModelPrices";
import { TraceViewerContext } from "@/components/trace/TraceContext";
import { ChatLayout } from "./ChatLayout";
import { Composer } from "./Composer";
import { ModelBanner } from "./ModelBanner";
import { Sidebar } from "./Sidebar";
import { useAttachments } from "./useAttachments";
import { useConversationList } from "./useConversationList";
import { useConversationRun } from "./useConversationRun";
import { useConversationViewer } from "./useConversationViewer";
import { usePlanFirst } from "./usePlanFirst";

interface OwnerChatViewProps {
  /** The conversation, or null on / before the first message creates one. */
  initial: InitialView | null;
  /** The agent profiles to choose from, and the one a new conversation gets. */
  profiles: { names: string[]; defaultProfile: string };
  conversations: ConversationPage;
  modelConfigured: boolean;
  /** Accounts on or off (TOOLSMITH_AUTH), and who is signed in: a share link may then be for members only. */
  visitor: Visitor;
  /** The labels annotations may have, and the viewer's author key in this conversation when it is known. */
  review: { labels: string[]; authorKey?: string };
}

/** The owner's chat: their conversations, the messages and composer, the live reasoning panel, and sharing. */
export function OwnerChatView({
  initial,
  profiles,
  conversations: firstPage,
  modelConfigured,
  visitor,
  review,
}: OwnerChatViewProps) {
  const conversationId = initial?.id ?? null;
  const list = useConversationList(firstPage);
  const [profile, setProfile] = useState(initial?.profile ?? profiles.defaultProfile);
  const run = useConversationRun({ initial, profile, onSent: list.refresh });
  const [planFirst, choosePlanFirst] = usePlanFirst(conversationId);
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
  const viewer = useConversationViewer({
    source: run.source,
    pagePath: `/c/${conversationId}`,
    owner: true,
    tools: run.tools,
    review,
  });
  const [sharing, setSharing] = useState(false);
  const closeSharing = useCallback(() => setSharing(false), []);
  const attachments = useAttachments(run.ensureConversation);
  const composer = useRef<HTMLTextAreaElement>(null);
  useEffect(() => composer.current?.focus(), []);

  return (
    <OwnTraceContext.Provider value={conversationId}>
      <TraceViewerContext.Provider value={viewer}>
        <ChatLayout
          run={run}
          title={title}
          prices={initial?.prices ?? NO_PRICES}
          sidebar={({ newChat, closeDrawer }) => (
            <Sidebar
              list={list}
              activeId={conversationId}
              onNewChat={newChat}
              onDeletedActive={newChat}
              onNavigate={closeDrawer}
              visitor={visitor}
            />
          )}
          actions={
            run.source && (
              <>
                <ExportLinks source={run.source} />
                <Button variant="quiet" onClick={() => setSharing(true)}>
                  <Link2 className="size-4" aria-hidden /> Share
                </Button>
              </>
            )
          }
          banner={!modelConfigured && <ModelBanner />}
          onDropFiles={attachments.add}
          composer={
            <Composer
              ref={composer}
              profile={{ names: profiles.names, current: profile, onChange: chooseProfile }}
              planFirst={{ on: planFirst, onChange: choosePlanFirst }}
              running={run.running}
              attachments={attachments}
              onSend={run.send}
              onStop={() => void run.stop()}
            />
          }
        />
        {sharing && conversationId && (
          <ShareDialog conversationId={conversationId} accountsOn={visitor.accountsOn} onClose={closeSharing} />
        )}
      </TraceViewerContext.Provider>
    </OwnTraceContext.Provider>
  );
}
