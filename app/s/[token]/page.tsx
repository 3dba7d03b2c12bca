import type { Metadata } from "next";
import { sharedFileUrl } from "@/lib/files/views";
import { notFound } from "next/navigation";
import { SharedChatView } from "@/components/share/SharedChatView";
import { MembersOnly, membersOnlyMetadata } from "@/components/share/MembersOnly";
import { listMessages } from "@/lib/db/queries/messages";
import { pageIdentity, sharedConversationForPage } from "@/lib/http/access";
import { authorKey } from "@/lib/review/reviews";
import { config } from "@/lib/settings/config";
import { loadTrace } from "@/lib/conversations/trace";
import { initialView } from "@/lib/conversations/initial-view";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ token: string }> };

/** A good link preview: the title, and the first message as the description. */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await sharedConversationForPage((await params).token);
  if (!conversation) return { title: "Not found · Toolsmith" };
  if (conversation === "sign_in") return membersOnlyMetadata;
  const first = (await listMessages(conversation.id)).find((message) => message.role === "user");
  const description = (first?.content ?? "A conversation with an agent that builds its own tools.")
    .replace(/\s+/g, " ")
    .slice(0, 200);
  const title = `${conversation.title} · Toolsmith`;
  return {
    title,
    description,
    robots: { index: false, follow: false },
    openGraph: { title, description, type: "article", siteName: "Toolsmith" },
    twitter: { card: "summary", title, description },
  };
}

/** A shared conversation: the owner's view, read-only, following a live run. Viewing writes nothing. */
export default async function SharedConversationPage({ params }: Props) {
  const { token } = await params;
  const conversation = await sharedConversationForPage(token);
  if (!conversation) notFound();
  if (conversation === "sign_in") return <MembersOnly path={`/s/${token}`} />;
  // A first visit has no identity yet (the response brings its cookie): its key is learnt from its first review.
  const identity = await pageIdentity();
  return (
    <SharedChatView
      key={conversation.id}
      initial={initialView(await loadTrace(conversation, sharedFileUrl(token)))}
      token={token}
      review={{ labels: config.annotationLabels, authorKey: identity && authorKey(conversation.id, identity) }}
    />
  );
}
