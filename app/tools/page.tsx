import type { Metadata } from "next";
import { Library } from "@/components/tools/Library";
import { PageShell } from "@/components/ui/PageShell";
import { memberPageIdentity } from "@/lib/http/access";
import { toolPage } from "@/lib/tools/library/list";

export const metadata: Metadata = { title: "Tool library · Toolsmith" };

const FIRST_PAGE = 50;

export default async function ToolLibraryPage() {
  const identity = await memberPageIdentity();
  const first = identity ? await toolPage(identity, { limit: FIRST_PAGE }) : { tools: [], nextCursor: null };
  return (
    <PageShell current="/tools">
      <Library initial={first} />
    </PageShell>
  );
}
