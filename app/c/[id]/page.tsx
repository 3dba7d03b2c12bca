import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OwnerChatView } from "@/components/chat/OwnerChatView";
import { config, modelConfig } from "@/lib/settings/config";
import { pageVisitor } from "@/lib/accounts/account";
import { authorKey } from "@/lib/review/reviews";
import { ownedConversationForPage, memberPageIdentity } from "@/lib/http/access";
import { conversationPage } from "@/lib/conversations/list";
import { profileChoiceFor } from "@/lib/accounts/admin";
import { loadTrace } from "@/lib/conversations/trace";
import { initialView } from "@/lib/conversations/initial-view";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await ownedConversationForPage((await params).id);
  return { title: conversation ? `${conversation.title} · Toolsmith` : "Not found · Toolsmith" };
}

export default async function ConversationPage({ params }: Props) {
  const conversation = await ownedConversationForPage((await params).id);
  if (!conversation) notFound();
  const identity = (await memberPageIdentity())!;
  const [trace, conversations] = await Promise.all([loadTrace(conversation), conversationPage(identity)]);
  return (
    <OwnerChatView
      key={conversation.id}
      initial={initialView(trace)}
      profiles={await profileChoiceFor(identity)}
      conversations={conversations}
      modelConfigured={modelConfig() !== undefined}
      visitor={await pageVisitor()}
      review={{ labels: config.annotationLabels, authorKey: authorKey(conversation.id, identity) }}
    />
  );
}
