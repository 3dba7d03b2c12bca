import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ToolDetail } from "@/components/tools/ToolDetail";
import { PageShell } from "@/components/ui/PageShell";
import { listToolExecutions, toolStats } from "@/lib/db/queries/executions";
import {
  findLibraryTool,
  findOwnedTool,
  listConversationOwnTools,
  listToolVersions,
  toolsWithUses,
  type ToolRow,
} from "@/lib/db/queries/tools";
import { memberPageIdentity } from "@/lib/http/access";
import { isBuiltinName } from "@/lib/tools/names";
import { executionJson, toolJson, toolUses } from "@/lib/tools/library/wire";

type Props = { params: Promise<{ id: string }> };

const RECENT_CALLS = 50;

/** The visitor's tool, or null: asked once per request by the metadata and the page. */
const ownedTool = cache(async (id: string) => {
  const identity = await memberPageIdentity();
  return identity ? findOwnedTool(id, identity) : null;
});

/**
 * The pages of the tools `tool` calls, found as a run finds them (its conversation's own tools first, then the
 * library), and of the tools whose latest version calls it. Built-in and MCP (`server__tool`) names have no page.
 */
async function relationsOf(tool: ToolRow) {
  const own = tool.conversationId ? await listConversationOwnTools(tool.conversationId, tool.ownerId) : [];
  const uses = await Promise.all(
    toolUses(tool).map(async (name) => {
      if (isBuiltinName(name) || name.includes("__")) return { name };
      const row = own.find((candidate) => candidate.name === name) ?? (await findLibraryTool(tool.ownerId, name));
      return { name, id: row?.lineageId };
    }),
  );
  const usedBy = (await toolsWithUses(tool.ownerId))
    .filter((user) => toolUses(user).includes(tool.name))
    .map((user) => ({ name: user.name, id: user.lineageId }));
  return { uses, usedBy };
}

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
    relationsOf(tool),
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
