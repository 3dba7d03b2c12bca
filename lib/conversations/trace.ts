import type { RunSummary } from "@/lib/contract/responses";
import { activeRun } from "@/lib/runs/run";
import { databaseClock } from "@/lib/db/driver/clock";
import { listEvents } from "@/lib/db/queries/events";
import { listMessages } from "@/lib/db/queries/messages";
import { listRuns } from "@/lib/db/queries/runs";
import { listConversationTools } from "@/lib/db/queries/tools";
import { toolView } from "@/lib/tools/library/wire";
import { runAwaitingItsEnd } from "@/lib/events/run-end";
import { listFiles } from "@/lib/db/queries/files";
import { fileView, ownerFileUrl, type FileUrl } from "@/lib/files/views";

/**
 * Everything a reader of a conversation needs: messages, the event log (each event as streamed, with its SSE id),
 * every version of every tool it registered, and whether a run is active. Events of an active run that are not
 * stored yet come from memory, so the trace is complete at any moment.
 */
export async function loadTrace(
  conversation: {
    id: string;
    title: string;
    profile: string | null;
    createdAt: Date;
    updatedAt: Date;
  },
  /** Where its reader gets each file: the owner's route, or the share link's. */
  fileUrl: FileUrl = ownerFileUrl,
) {
  const live = activeRun(conversation.id)?.channel;
  const [messages, stored, tools, runs, files] = await Promise.all([
    listMessages(conversation.id),
    listEvents(conversation.id, 0, live?.firstSeq),
    listConversationTools(conversation.id),
    listRuns(conversation.id),
    listFiles(conversation.id),
  ]);
  const events = [...stored, ...(live?.events ?? [])].map(({ seq, event }) => ({ id: seq, ...event }));
  const last = events.at(-1);
  const finishing =
    last &&
    runAwaitingItsEnd(
      { ...last, finishedAt: runs.find((run) => run.id === last.runId)?.finishedAt ?? null },
      databaseClock.now(),
    );
  return {
    ...conversation,
    // A run executing on another instance is running all the same; one that has stopped there but not stored its
    // end yet is followed for it.
    activeRunId:
      live && !live.isEnded ? live.runId : (runs.find((run) => run.status === "running")?.id ?? finishing ?? null),
    lastEventId: events.at(-1)?.id ?? 0,
    messages,
    events,
    tools: tools.map((tool) => ({ ...toolView(tool), status: tool.status, createdAt: tool.createdAt })),
    // The status is text in the database, written only from the values the contract lists.
    runs: runs.map((run) => ({ ...run, status: run.status as RunSummary["status"] })),
    files: files.map((file) => fileView(file, fileUrl)),
  };
}

export type Trace = Awaited<ReturnType<typeof loadTrace>>;
