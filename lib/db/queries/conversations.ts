import { randomUUID } from "node:crypto";
import type { LoggedEvent, SequencedEvent } from "@/lib/contract/events";
import { CUT_RUN_STATUS, type ForkedLog } from "@/lib/contract/log";
import { db, sql, transaction } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { toDate } from "@/lib/db/driver/sql";
import { packEvents } from "./event-packing";
import { appendEvents, listEvents } from "./events";

const summary = { id: true, title: true, profile: true, createdAt: true, updatedAt: true } as const;

/** The summary's columns, for the statements every message runs (lib/db/driver/sql.ts). */
const SUMMARY_COLUMNS = `"id", "title", "profile", "createdAt", "updatedAt"`;
interface SummaryRow {
  id: string;
  title: string;
  profile: string | null;
  createdAt: unknown;
  updatedAt: unknown;
}
const summaryOf = (row: SummaryRow) => ({ ...row, createdAt: toDate(row.createdAt), updatedAt: toDate(row.updatedAt) });

export function createConversation(ownerId: string, fields: { title?: string; profile?: string }) {
  const now = databaseClock.now();
  return db.conversation.create({ data: { ownerId, ...fields, createdAt: now, updatedAt: now }, select: summary });
}

export interface ConversationCursor {
  createdAt: Date;
  id: string;
}

/** Up to `limit` of an identity's conversations, newest first, after a position. */
/** `thumbsDown`: only those with a run that a reviewer's latest verdict is a thumbs down on. */
export function listConversations(ownerId: string, limit: number, after?: ConversationCursor, thumbsDown = false) {
  return db.conversation.findMany({
    where: {
      ownerId,
      ...(thumbsDown ? { verdicts: { some: { verdict: "down" } } } : {}),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: summary,
    take: limit,
  });
}

/** The conversation, if `ownerId` owns it: the ownership check behind every conversation route and page. */
export async function findOwnedConversation(id: string, ownerId: string) {
  const [row] = await sql.rows<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM "Conversation" WHERE "id" = ? AND "ownerId" = ?`,
    [id, ownerId],
  );
  return row ? summaryOf(row) : null;
}

/** Who owns the conversation; undefined when it does not exist. */
export async function conversationOwner(id: string): Promise<string | undefined> {
  const [row] = await sql.rows<{ ownerId: string }>(`SELECT "ownerId" FROM "Conversation" WHERE "id" = ?`, [id]);
  return row?.ownerId;
}

/**
 * An identity's conversations related to one by forking: its forks, and the one it was forked from (when the same
 * identity owns it), oldest first.
 */
export async function relatedConversations(id: string, ownerId: string) {
  const conversation = await db.conversation.findUnique({ where: { id }, select: { forkedFromId: true } });
  const source = conversation?.forkedFromId;
  return db.conversation.findMany({
    where: { ownerId, OR: [{ forkedFromId: id }, ...(source ? [{ id: source }] : [])] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { ...summary, forkedFromId: true },
  });
}

/** Change a conversation's fields; undefined ones stay as they are. Null when it no longer exists. */
export async function updateConversation(id: string, change: { title?: string; profile?: string }) {
  const [row] = await sql.rows<SummaryRow>(
    `UPDATE "Conversation" SET "title" = COALESCE(?, "title"), "profile" = COALESCE(?, "profile"), "updatedAt" = ? WHERE "id" = ? RETURNING ${SUMMARY_COLUMNS}`,
    [change.title ?? null, change.profile ?? null, databaseClock.now(), id],
  );
  return row ? summaryOf(row) : null;
}

/** Deletes everything of the conversation, its own tools included; tools it put in the library stay there. */
export async function deleteConversation(id: string): Promise<void> {
  await db.$transaction([
    db.tool.deleteMany({ where: { conversationId: id, scope: "conversation" } }),
    db.conversation.delete({ where: { id } }),
  ]);
}

/**
 * Copy a conversation into a new one owned by `ownerId`, which continues from there: the events `copied` takes of
 * its log (all of it, or up to the end of a step: lib/trace/fork.ts) — the runs they are of, the user's messages of
 * those, the answers of the runs copied whole, and the tool versions whose registration is copied. Ids are fresh and
 * every reference inside the events is rewritten to them; the original is only read. Null when `copied` finds
 * nothing to copy. `messageIds` maps the source's messages to their copies (the files attached to them follow).
 */
export async function forkConversation(
  sourceId: string,
  ownerId: string,
  copied: (log: SequencedEvent[]) => ForkedLog | undefined,
): Promise<{ id: string; title: string; messageIds: Map<string, string> } | null> {
  return transaction(async (tx) => {
    const source = await tx.conversation.findUniqueOrThrow({ where: { id: sourceId } });
    const [messages, runs, tools, events] = await Promise.all([
      tx.message.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.run.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.tool.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      listEvents(sourceId, 0, undefined, sql.within(tx)),
    ]);
    const log = copied(events);
    if (!log) return null;
    const partial = !log.whole;
    const copiedRuns = partial ? runs.filter((run) => log.runIds.has(run.id)) : runs;
    const registered = new Set(
      log.events.flatMap((event) => (event.type === "tool_registered" ? [event.tool.versionId] : [])),
    );
    const copiedTools = partial ? tools.filter((tool) => registered.has(tool.id)) : tools;
    // The user's message of every run copied; the answer only of a run copied whole.
    const copiedMessages = partial
      ? messages.filter((m) => log.runIds.has(m.runId) && (m.role === "user" || m.runId !== log.cut?.runId))
      : messages;

    const fork = await tx.conversation.create({
      data: {
        ownerId,
        title: source.title,
        profile: source.profile,
        forkedFromId: sourceId,
        createdAt: source.createdAt,
      },
    });
    const runIds = new Map(copiedRuns.map((run) => [run.id, randomUUID()]));
    const messageIds = new Map(copiedMessages.map((message) => [message.id, randomUUID()]));
    const toolIds = new Map(copiedTools.map((tool) => [tool.id, randomUUID()]));
    const lineageIds = new Map(copiedTools.map((tool) => [tool.lineageId, randomUUID()]));
    const newRunId = (id: string) => runIds.get(id) ?? id;

    // A copy is no claim of the run's (claims are unique: lib/db/queries/runs.ts); the cut run ends with the copy.
    await tx.run.createMany({
      data: copiedRuns.map((run) => ({
        ...run,
        id: newRunId(run.id),
        conversationId: fork.id,
        claim: null,
        ...(run.id === log.cut?.runId && {
          status: CUT_RUN_STATUS,
          steps: log.cut.steps,
          finishedAt: new Date(log.cut.endedAt),
          instanceId: null,
          leaseUntil: null,
          cancelRequested: false,
        }),
      })),
    });
    await tx.message.createMany({
      data: copiedMessages.map((m) => ({
        ...m,
        id: messageIds.get(m.id)!,
        runId: newRunId(m.runId),
        conversationId: fork.id,
      })),
    });
    // The copies are the new owner's, and the fork's own: a tool the source put in its library stays there. The
    // latest version copied of each tool is the one in use, whatever came after it in the source.
    const latest = new Map<string, number>();
    for (const tool of copiedTools) latest.set(tool.lineageId, Math.max(latest.get(tool.lineageId) ?? 0, tool.version));
    await tx.tool.createMany({
      data: copiedTools.map((tool) => ({
        ...tool,
        id: toolIds.get(tool.id)!,
        lineageId: lineageIds.get(tool.lineageId)!,
        ownerId,
        scope: "conversation",
        status: tool.version === latest.get(tool.lineageId) ? "active" : "superseded",
        runId: tool.runId && newRunId(tool.runId),
        conversationId: fork.id,
      })),
    });

    const rewritten = log.events.map((event, index) => {
      const copy = { ...event, runId: newRunId(event.runId) } as LoggedEvent;
      if (copy.type === "run_started") copy.messageId = messageIds.get(copy.messageId) ?? copy.messageId;
      if (copy.type === "tool_registered") {
        copy.tool = {
          ...copy.tool,
          id: lineageIds.get(copy.tool.id) ?? copy.tool.id,
          versionId: toolIds.get(copy.tool.versionId) ?? copy.tool.versionId,
        };
      }
      // Numbered anew, without the gaps the dropped review events would leave.
      return { seq: index + 1, event: copy };
    });
    await appendEvents(
      packEvents(rewritten).map((row) => ({ ...row, conversationId: fork.id })),
      sql.within(tx),
    );
    return { id: fork.id, title: fork.title, messageIds };
  });
}
