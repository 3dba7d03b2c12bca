import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparePage } from "@/components/compare/ComparePage";
import { MembersOnly, membersOnlyMetadata } from "@/components/share/MembersOnly";
import { sharedConversationForPage } from "@/lib/http/access";

export const dynamic = "force-dynamic";

type Props = {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await sharedConversationForPage((await params).token);
  if (conversation === "sign_in") return membersOnlyMetadata;
  return {
    title: conversation ? `Compare runs · ${conversation.title} · Toolsmith` : "Not found · Toolsmith",
    robots: { index: false, follow: false },
  };
}

/**
 * Two runs side by side (`?a={runId}&b={runId}`): of the shared conversation, or of the viewer's own conversations,
 * such as the forks they made of it. Viewing writes nothing.
 */
export default async function SharedCompareRunsPage({ params, searchParams }: Props) {
  const { token } = await params;
  const conversation = await sharedConversationForPage(token);
  if (!conversation) notFound();
  if (conversation === "sign_in") return <MembersOnly path={`/s/${token}/compare`} />;
  return <ComparePage home={conversation} homePath={`/s/${encodeURIComponent(token)}`} searchParams={searchParams} />;
}
