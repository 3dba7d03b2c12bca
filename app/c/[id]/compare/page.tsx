import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ComparisonView } from "@/components/compare/ComparisonView";
import { PageShell } from "@/components/ui/PageShell";
import { ownedConversationForPage, pageIdentity } from "@/lib/http/access";
import { comparisonPage, runQuery } from "@/lib/trace/comparison-page";

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
  const path = `/c/${conversation.id}`;
  const page = await comparisonPage(
    { viewer: await pageIdentity(), home: conversation, homePath: path },
    runQuery(await searchParams),
  );
  if (!page) notFound();
  return (
    <PageShell>
      <ComparisonView page={page} action={`${path}/compare`} />
    </PageShell>
  );
}
