import { notFound } from "next/navigation";
import { PageShell } from "@/components/ui/PageShell";
import { pageIdentity } from "@/lib/http/access";
import { comparisonPage, runQuery, type CompareScope } from "@/lib/conversations/comparison";
import { ComparisonView } from "./ComparisonView";

/** The body of both compare pages, once their conversation is known readable: 404 for a run the viewer cannot read. */
export async function ComparePage({
  home,
  homePath,
  searchParams,
}: Omit<CompareScope, "viewer"> & { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const page = await comparisonPage({ viewer: await pageIdentity(), home, homePath }, runQuery(await searchParams));
  if (!page) notFound();
  return (
    <PageShell>
      <ComparisonView page={page} action={`${homePath}/compare`} />
    </PageShell>
  );
}
