import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparePage } from "@/components/compare/ComparePage";
import { ownedConversationForPage } from "@/lib/http/access";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await ownedConversationForPage((await params).id);
  return { title: conversation ? `Compare runs · ${conversation.title} · Toolsmith` : "Not found · Toolsmith" };
}

/** Two runs side by side (`?a={runId}&b={runId}`): of this conversation, its forks, or any other of the owner's. */
export default async function CompareRunsPage({ params, searchParams }: Props) {
  const conversation = await ownedConversationForPage((await params).id);
  if (!conversation) notFound();
  return <ComparePage home={conversation} homePath={`/c/${conversation.id}`} searchParams={searchParams} />;
}
