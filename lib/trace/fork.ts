import { randomUUID } from "node:crypto";
import { sql, transaction } from "@/lib/db/driver/client";
import { appendEvents, listEvents } from "@/lib/db/queries/events";
import { packEvents } from "@/lib/db/queries/event-packing";
import { isReviewEvent, type LoggedEvent, type RunStatus, type SequencedEvent } from "@/lib/contract/events";

/**
 * How a run copied only up to one of its steps ends: cut short by a person, as Stop ends a run. "completed" would
 * claim an answer the model never gave, and the trace would show the cut run as if it had succeeded.
 */
export const CUT_RUN_STATUS: RunStatus = "cancelled";

/** What of a conversation's log a fork copies. */
export interface ForkedLog {
  /** In order, to be numbered 1, 2, 3 … in the fork: no review events, and the closing run_finished of a cut run. */
  events: LoggedEvent[];
  /** Every run the copy has events of. */
  runIds: Set<string>;
  /** The run copied only up to a step, closed by a run_finished of the fork's own; none when runs are copied whole. */
  cut?: { runId: string; steps: number; endedAt: number };
}

/**
 * The events a fork copies: all of them, or with `throughEventId` (a step's step_started or a tool call's
 * tool_call) those up to the end of that step, its step_finished, or the last event the step has when it never
 * finished. A step followed only by its run's end (its error, its run_finished) takes its run whole; otherwise the
 * run is cut there and closed. Review events are dropped. Undefined when `throughEventId` names no step or call.
 */
export function forkedLog(log: SequencedEvent[], throughEventId?: number): ForkedLog | undefined {
  // Reviewers' notes belong to the conversation they were written on: a fork starts without them.
  const events = log.filter(({ event }) => !isReviewEvent(event));
  if (throughEventId === undefined) return { events: events.map(({ event }) => event), runIds: runsOf(events) };

  const card = events.findIndex(({ seq }) => seq === throughEventId);
  const named = events[card]?.event;
  if (!named || (named.type !== "step_started" && named.type !== "tool_call")) return undefined;
  const { runId, step } = named;
  const start = events.findLastIndex(
    ({ event }, index) =>
      index <= card && event.runId === runId && event.type === "step_started" && event.step === step,
  );
  // Runs follow one another in the log (review events, interleaved, are gone): another run's event ends this one.
  let last = start;
  for (let index = start + 1; index < events.length; index++) {
    const { event } = events[index];
    if (event.runId !== runId || event.type === "step_started" || event.type === "run_resumed" || !("step" in event))
      break;
    if (event.step !== step) continue;
    last = index;
    if (event.type === "step_finished") break;
  }

  let end = last + 1;
  while (end < events.length && events[end].event.runId === runId && events[end].event.type === "error") end++;
  if (end < events.length && events[end].event.runId === runId && events[end].event.type === "run_finished") {
    const copied = events.slice(0, end + 1);
    return { events: copied.map(({ event }) => event), runIds: runsOf(copied) };
  }
  const copied = events.slice(0, last + 1);
  // The copy ends where its last event did, so the run's duration stays what it was up to there.
  const cut = { runId, steps: step, endedAt: events[last].event.at };
  const closing: LoggedEvent = { type: "run_finished", status: CUT_RUN_STATUS, steps: step, runId, at: cut.endedAt };
  return { events: [...copied.map(({ event }) => event), closing], runIds: runsOf(copied), cut };
}

const runsOf = (events: SequencedEvent[]) => new Set(events.map(({ event }) => event.runId));

/**
 * Copy a conversation into a new one owned by `ownerId`, which continues from there: all of it, or with
 * `throughEventId` up to the end of that step (see `forkedLog`) — the runs before it, the user's messages up to it,
 * the answers of the runs copied whole, and the tool versions whose registration is copied. Ids are fresh and every
 * reference inside the events is rewritten to them; the original is only read. Null when `throughEventId` names no
 * step or tool call of the conversation.
 */
export async function forkConversation(
  sourceId: string,
  ownerId: string,
  { throughEventId }: { throughEventId?: number } = {},
): Promise<{ id: string; title: string } | null> {
  return transaction(async (tx) => {
    const source = await tx.conversation.findUniqueOrThrow({ where: { id: sourceId } });
    const [messages, runs, tools, events] = await Promise.all([
      tx.message.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.run.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      tx.tool.findMany({ where: { conversationId: sourceId }, orderBy: { createdAt: "asc" } }),
      listEvents(sourceId, 0, undefined, sql.within(tx)),
    ]);
    const log = forkedLog(events, throughEventId);
    if (!log) return null;
    const partial = throughEventId !== undefined;
    const copiedRuns = partial ? runs.filter((run) => log.runIds.has(run.id)) : runs;
    const registered = new Set(
      log.events.flatMap((event) => (event.type === "tool_registered" ? [event.tool.id] : [])),
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
    return { id: fork.id, title: fork.title };
  });
}
