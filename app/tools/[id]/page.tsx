import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ToolDetail } from "@/components/tools/ToolDetail";
import { PageShell } from "@/components/ui/PageShell";
import { listToolExecutions, toolStats } from "@/lib/db/queries/executions";
import { findOwnedTool, listToolVersions } from "@/lib/db/queries/tools";
import { memberPageIdentity } from "@/lib/http/access";
import { toolRelations } from "@/lib/tools/library/list";
import { executionJson, toolJson } from "@/lib/tools/library/wire";

type Props = { params: Promise<{ id: string }> };

const RECENT_CALLS = 50;

/** The visitor's tool, or null: asked once per request by the metadata and the page. */
const ownedTool = cache(async (id: string) => {
  const identity = await memberPageIdentity();
  return identity ? findOwnedTool(id, identity) : null;
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const tool = await ownedTool((await params).id);
  return { title: tool ? `${tool.name} · Tool library · Toolsmith` : "Not found · Toolsmith" };
}

export default async function ToolPage({ params }: Props) {
  const tool = await ownedTool((await params).id);
  if (!tool) notFound();
  const [versions, stats, executions, relations] = await Promise.all([
    listToolVersions(tool.lineageId),
    toolStats([tool.lineageId]),
    listToolExecutions(tool.lineageId, RECENT_CALLS),
    toolRelations(tool),
  ]);
  return (
    <PageShell current="/tools">
      <ToolDetail
        initial={toolJson(tool, stats.get(tool.lineageId))}
        versions={versions.map((version) => toolJson(version))}
        executions={executions.map(executionJson)}
        relations={relations}
      />
    </PageShell>
  );
}
