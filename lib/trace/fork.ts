import { randomUUID } from "node:crypto";
import { sql, transaction } from "@/lib/db/driver/client";
import { appendEvents, listEvents } from "@/lib/db/queries/events";
import { packEvents } from "@/lib/events/packing";
import type { LoggedEvent } from "@/lib/contract/events";

/**
 * Copy a conversation — messages, runs, the event log and every tool version — into a new one owned by `ownerId`,
 * which continues from there. Ids are fresh and every reference inside the events is rewritten to them; the
 * original is only read.
 */
export async function forkConversation(sourceId: string, ownerId: string): Promise<{ id: string; title: string }> {
  return transaction(async (tx) => {
    const source = await tx.conversation.findUniqueOrThrow({ where: { id: sourceId } });
    const [messages, runs, tools, events] = await Promise.all([
      tx.message.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.run.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.tool.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      listEvents(sourceId, 0, undefined, sql.within(tx)),
    ]);
    const fork = await tx.conversation.create({ data: { ownerId, title: source.title, createdAt: source.createdAt } });
    const runIds = new Map(runs.map((run) => [run.id, randomUUID()]));
    const messageIds = new Map(messages.map((message) => [message.id, randomUUID()]));
    const toolIds = new Map(tools.map((tool) => [tool.id, randomUUID()]));
    const lineageIds = new Map(tools.map((tool) => [tool.lineageId, randomUUID()]));
    const newRunId = (id: string) => runIds.get(id) ?? id;

    // A copy is no claim of the run's (claims are unique: lib/db/queries/runs.ts).
    await tx.run.createMany({
      data: runs.map((run) => ({ ...run, id: newRunId(run.id), conversationId: fork.id, claim: null })),
    });
    await tx.message.createMany({
      data: messages.map((m) => ({
        ...m,
        id: messageIds.get(m.id)!,
        runId: newRunId(m.runId),
        conversationId: fork.id,
      })),
    });
    // The copies are the new owner's, and the fork's own: a tool the source put in its library stays there.
    await tx.tool.createMany({
      data: tools.map((tool) => ({
        ...tool,
        id: toolIds.get(tool.id)!,
        lineageId: lineageIds.get(tool.lineageId)!,
        ownerId,
        scope: "conversation",
        runId: tool.runId && newRunId(tool.runId),
        conversationId: fork.id,
      })),
    });

    const rewritten = events.map(({ seq, event }) => {
      const copy = { ...event, runId: newRunId(event.runId) } as LoggedEvent;
      if (copy.type === "run_started") copy.messageId = messageIds.get(copy.messageId) ?? copy.messageId;
      if (copy.type === "tool_registered") {
        copy.tool = {
          ...copy.tool,
          id: toolIds.get(copy.tool.id) ?? copy.tool.id,
          toolId: lineageIds.get(copy.tool.toolId) ?? copy.tool.toolId,
        };
      }
      return { seq, event: copy };
    });
    await appendEvents(
      packEvents(rewritten).map((row) => ({ ...row, conversationId: fork.id })),
      sql.within(tx),
    );
    return { id: fork.id, title: fork.title };
  });
}
