import { randomUUID } from "node:crypto";
import { batchedInserts, RECORD_GATHERING } from "@/lib/db/driver/batched-writes";
import { db, sql } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { toDate, toInt } from "@/lib/db/driver/sql";
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

/** Once every call recorded so far in this process is stored (calls are written in batches). */
export const callsRecorded = (): Promise<void> => executionRows.settled();

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
  if (lineageIds.length === 0) return stats;
  // One statement, as SQL: every search and list answers with statistics, and three Prisma queries (each compiled
  // by Prisma's query compiler) cost more than the database's work. Calls by status; the latest call of each tool.
  const groups = await sql.rows<Record<"lineageId" | "status" | "calls" | "totalMs" | "lastAt" | "lastMs", unknown>>(
    `WITH calls AS (
      SELECT t."lineageId", e."status", e."durationMs", e."createdAt",
        row_number() OVER (PARTITION BY t."lineageId" ORDER BY e."createdAt" DESC) AS "recency"
      FROM "Tool" t JOIN "ToolExecution" e ON e."toolId" = t."id"
      WHERE t."lineageId" IN (${lineageIds.map(() => "?").join(", ")})
    )
    SELECT "lineageId", "status", count(*) AS "calls", sum("durationMs") AS "totalMs",
      max(CASE WHEN "recency" = 1 THEN "createdAt" END) AS "lastAt",
      max(CASE WHEN "recency" = 1 THEN "durationMs" END) AS "lastMs"
    FROM calls GROUP BY "lineageId", "status"`,
    lineageIds,
  );
  const totalMs = new Map<string, number>();
  for (const group of groups) {
    const lineage = group.lineageId as string;
    const entry = stats.get(lineage)!;
    const calls = toInt(group.calls);
    entry.executions += calls;
    if (group.status === "succeeded") entry.successes += calls;
    else if (group.status === "cancelled") entry.cancelled += calls;
    else entry.failures += calls;
    totalMs.set(lineage, (totalMs.get(lineage) ?? 0) + toInt(group.totalMs ?? 0));
    if (group.lastAt !== null)
      Object.assign(entry, { lastUsedAt: toDate(group.lastAt), lastDurationMs: toInt(group.lastMs) });
  }
  for (const [lineage, entry] of stats)
    if (entry.executions > 0) entry.meanDurationMs = Math.round(totalMs.get(lineage)! / entry.executions);
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
