import { randomUUID } from "node:crypto";
import { batchedInserts, RECORD_GATHERING } from "@/lib/db/driver/batched-writes";
import { db } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import type { Execution } from "@/lib/contract/responses";

export type ExecutionStatus = Execution["status"];

export interface ExecutionRecord {
  /** Where the call came from: a conversation's run, the REST API, or an MCP client. */
  source: Execution["source"];
  conversationId?: string;
  runId?: string;
  callId?: string;
  toolName: string;
  /** The stored tool version that ran (its row's `toolId` column); absent for built-ins. */
  versionId?: string;
  input: unknown;
  output?: unknown;
  error?: string;
  status: ExecutionStatus;
  durationMs: number;
}

const executionRows = batchedInserts(
  "ToolExecution",
  [
    "id",
    "conversationId",
    "source",
    "runId",
    "callId",
    "toolName",
    "toolId",
    "input",
    "output",
    "error",
    "status",
    "durationMs",
    "createdAt",
  ],
  RECORD_GATHERING,
);

export async function recordExecution(record: ExecutionRecord): Promise<void> {
  // Async, so that a row that cannot be built rejects like a row that cannot be stored.
  return executionRows.write([
    randomUUID(),
    record.conversationId ?? null,
    record.source,
    record.runId ?? null,
    record.callId ?? null,
    record.toolName,
    record.versionId ?? null,
    JSON.stringify(record.input ?? null),
    record.output === undefined ? null : JSON.stringify(record.output),
    record.error?.toWellFormed() ?? null,
    record.status,
    Math.round(record.durationMs),
    databaseClock.now(),
  ]);
}

export interface ToolStats {
  executions: number;
  successes: number;
  failures: number;
  cancelled: number;
  meanDurationMs: number | null;
  lastDurationMs: number | null;
  lastUsedAt: Date | null;
}

/** The statistics of a tool that was never called. */
export const noCalls = (): ToolStats => ({
  executions: 0,
  successes: 0,
  failures: 0,
  cancelled: 0,
  meanDurationMs: null,
  lastDurationMs: null,
  lastUsedAt: null,
});

/**
 * Statistics of tools, by tool id (lineage), over every call of every version, from chat and API alike. This
 * process's recorded calls are counted (settled): a call answered a moment ago is in the statistics.
 */
export async function toolStats(lineageIds: string[]): Promise<Map<string, ToolStats>> {
  await executionRows.settled();
  const stats = new Map(lineageIds.map((id) => [id, noCalls()]));
  const versions = await db.tool.findMany({
    where: { lineageId: { in: lineageIds } },
    select: { id: true, lineageId: true },
  });
  const lineageOf = new Map(versions.map((version) => [version.id, version.lineageId]));
  const toolId = { in: [...lineageOf.keys()] };
  const [groups, latest] = await Promise.all([
    db.toolExecution.groupBy({
      by: ["toolId", "status"],
      where: { toolId },
      _count: { _all: true },
      _sum: { durationMs: true },
    }),
    db.toolExecution.findMany({
      where: { toolId },
      distinct: ["toolId"],
      orderBy: { createdAt: "desc" },
      select: { toolId: true, durationMs: true, createdAt: true },
    }),
  ]);
  const totalMs = new Map<string, number>();
  for (const group of groups) {
    const lineage = lineageOf.get(group.toolId!)!;
    const entry = stats.get(lineage)!;
    entry.executions += group._count._all;
    if (group.status === "succeeded") entry.successes += group._count._all;
    else if (group.status === "cancelled") entry.cancelled += group._count._all;
    else entry.failures += group._count._all;
    totalMs.set(lineage, (totalMs.get(lineage) ?? 0) + (group._sum.durationMs ?? 0));
  }
  for (const [lineage, entry] of stats)
    if (entry.executions > 0) entry.meanDurationMs = Math.round(totalMs.get(lineage)! / entry.executions);
  for (const call of latest) {
    const entry = stats.get(lineageOf.get(call.toolId!)!)!;
    if (!entry.lastUsedAt || call.createdAt > entry.lastUsedAt)
      Object.assign(entry, { lastUsedAt: call.createdAt, lastDurationMs: call.durationMs });
  }
  return stats;
}

/** An identity's totals: its tools and every call of them. */
export async function ownerToolTotals(ownerId: string) {
  await executionRows.settled();
  const [tools, calls] = await Promise.all([
    db.tool.groupBy({ by: ["scope", "deprecated"], where: { ownerId, status: "active" }, _count: { _all: true } }),
    db.toolExecution.groupBy({
      by: ["status"],
      where: { tool: { ownerId } },
      _count: { _all: true },
      _avg: { durationMs: true },
    }),
  ]);
  const count = (filter: (group: (typeof tools)[number]) => boolean) =>
    tools.filter(filter).reduce((sum, group) => sum + group._count._all, 0);
  const executions = calls.reduce((sum, group) => sum + group._count._all, 0);
  const callsWith = (status: string) => calls.find((group) => group.status === status)?._count._all ?? 0;
  const meanDurationMs =
    executions === 0
      ? null
      : Math.round(
          calls.reduce((sum, group) => sum + (group._avg.durationMs ?? 0) * group._count._all, 0) / executions,
        );
  return {
    tools: count(() => true),
    active: count((group) => !group.deprecated),
    deprecated: count((group) => group.deprecated),
    library: count((group) => group.scope === "library"),
    conversation: count((group) => group.scope === "conversation"),
    executions,
    successes: callsWith("succeeded"),
    failures: callsWith("failed"),
    cancelled: callsWith("cancelled"),
    successRate: executions === 0 ? null : callsWith("succeeded") / executions,
    meanDurationMs,
  };
}

/** The most recent calls of a tool (every version), newest first. */
export async function listToolExecutions(lineageId: string, limit: number) {
  await executionRows.settled();
  return db.toolExecution.findMany({
    where: { tool: { lineageId } },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: {
      id: true,
      source: true,
      conversationId: true,
      status: true,
      input: true,
      output: true,
      error: true,
      durationMs: true,
      createdAt: true,
      tool: { select: { version: true } },
    },
  });
}

/** One call of a tool (any version), by its id: what it was given and what it returned. */
export async function findToolExecution(lineageId: string, executionId: string) {
  await executionRows.settled();
  return db.toolExecution.findFirst({
    where: { id: executionId, tool: { lineageId } },
    select: { input: true, output: true, status: true },
  });
}

/**
 * The language of the stored tool version each call of a run ran, by call id (built-ins ran none): this process's
 * recorded calls are counted (settled).
 */
export async function toolLanguagesOfRun(conversationId: string, runId: string): Promise<Map<string, string>> {
  await executionRows.settled();
  const calls = await db.toolExecution.findMany({
    where: { conversationId, runId, callId: { not: null }, toolId: { not: null } },
    select: { callId: true, tool: { select: { language: true } } },
  });
  return new Map(calls.flatMap(({ callId, tool }) => (tool ? [[callId!, tool.language]] : [])));
}
