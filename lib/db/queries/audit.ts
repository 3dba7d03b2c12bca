import { createHash, randomUUID } from "node:crypto";
import { batchedInserts, RECORD_GATHERING } from "@/lib/db/driver/batched-writes";
import { db } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import type { AuditEntry as AuditJson } from "@/lib/contract/responses";

export type AuditDecision = AuditJson["decision"];

export interface AuditEntry {
  ownerId: string;
  conversationId?: string;
  runId?: string;
  tool: string;
  profile?: string;
  decision: AuditDecision;
  reason?: string;
  input: unknown;
  outcome?: "succeeded" | "failed" | "cancelled";
  durationMs: number;
}

const auditRows = batchedInserts(
  "ToolAudit",
  [
    "id",
    "ownerId",
    "conversationId",
    "runId",
    "tool",
    "profile",
    "decision",
    "reason",
    "inputHash",
    "inputSize",
    "outcome",
    "durationMs",
    "createdAt",
  ],
  RECORD_GATHERING,
);

/** Append one tool call to the audit log: the input's hash and size, never the input itself. */
export async function recordAudit({ input, ...entry }: AuditEntry): Promise<void> {
  const json = JSON.stringify(input ?? null);
  // Async, so that a row that cannot be built rejects like a row that cannot be stored.
  return auditRows.write([
    randomUUID(),
    entry.ownerId,
    entry.conversationId ?? null,
    entry.runId ?? null,
    entry.tool,
    entry.profile ?? null,
    entry.decision,
    entry.reason?.toWellFormed().slice(0, 1000) ?? null,
    createHash("sha256").update(json).digest("hex"),
    Buffer.byteLength(json),
    entry.outcome ?? null,
    Math.round(entry.durationMs),
    databaseClock.now(),
  ]);
}

export interface AuditQuery {
  tool?: string;
  conversation?: string;
  outcome?: string;
  limit: number;
  /** From the previous page: the time and id it ended with. */
  before?: { createdAt: Date; id: string };
}

/** A page of an identity's audit log, newest first; `null`, an admin's view, is every owner's (with its id). */
export async function listAudit(ownerId: string | null, { tool, conversation, outcome, limit, before }: AuditQuery) {
  // This process's entries are written in the background: a call answered a moment ago is in the page.
  await auditRows.settled();
  return db.toolAudit.findMany({
    where: {
      // Spelled out: an owner id that is missing by mistake must not widen the view to every owner.
      ...(ownerId === null ? {} : { ownerId }),
      tool,
      conversationId: conversation,
      outcome,
      ...(before
        ? { OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }] }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
}

export type AuditRow = Awaited<ReturnType<typeof listAudit>>[number];
