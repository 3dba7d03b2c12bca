import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ChatView } from "@/components/chat/ChatView";
import type { ChatMessage } from "@/components/chat/MessageList";
import { modelConfig } from "@/lib/config";
import { findConversation, listConversations } from "@/lib/db/conversations";
import { loadTrace } from "@/lib/trace/load";
import { applyEvents, emptyTrace } from "@/lib/trace/state";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await findConversation((await params).id);
  return { title: conversation ? `${conversation.title} · Toolsmith` : "Not found · Toolsmith" };
}

export default async function ConversationPage({ params }: Props) {
  const conversation = await findConversation((await params).id);
  if (!conversation) notFound();
  const [{ events, ...trace }, conversations] = await Promise.all([loadTrace(conversation), listConversations()]);
  return (
    <ChatView
      key={conversation.id}
      initial={{ ...trace, messages: trace.messages as ChatMessage[], trace: applyEvents(emptyTrace, events) }}
      conversations={conversations}
      modelConfigured={modelConfig() !== undefined}
    />
  );
}
