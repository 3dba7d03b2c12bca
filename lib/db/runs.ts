import { Prisma } from "@/lib/generated/sqlite/client";
import type { RunStatus } from "@/lib/events/types";
import { db } from "./client";

/**
 * Insert the conversation's running run, leased to `instanceId` until `leaseUntil`: the claim. False when the
 * conversation already has a running run, on any instance (the partial unique index refuses a second one).
 */
export async function claimRun(data: { id: string; conversationId: string; model: string; instanceId: string; leaseUntil: Date }): Promise<boolean> {
  try {
    await db.run.create({ data: { ...data, status: "running" } });
    return true;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return false;
    throw error;
  }
}

/** Finishing a run ends its claim: only running runs hold their conversation. */
export async function finishRun(id: string, status: RunStatus, steps: number): Promise<void> {
  await db.run.update({ where: { id }, data: { status, steps, finishedAt: new Date(), leaseUntil: null } });
}

export function listRuns(conversationId: string) {
  return db.run.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { id: true, status: true, model: true, steps: true, createdAt: true, finishedAt: true },
  });
}

/** The conversation's running run, on whichever instance executes it. */
export function runningRun(conversationId: string) {
  return db.run.findFirst({ where: { conversationId, status: "running" }, select: { id: true, instanceId: true, cancelRequested: true } });
}

/** Of these conversations, the ones with a running run, on any instance. */
export async function conversationsRunning(conversationIds: string[]): Promise<Set<string>> {
  const runs = await db.run.findMany({ where: { conversationId: { in: conversationIds }, status: "running" }, select: { conversationId: true } });
  return new Set(runs.map((run) => run.conversationId));
}

/**
 * The heartbeat: extend the leases of the runs this instance executes. Returns the ones it still holds (another
 * instance may have taken over a run whose lease ran out) and, of those, the ones a Stop was asked for elsewhere.
 */
export async function renewLeases(instanceId: string, runIds: string[], leaseUntil: Date): Promise<{ held: string[]; cancelRequested: string[] }> {
  if (runIds.length === 0) return { held: [], cancelRequested: [] };
  await db.run.updateMany({ where: { id: { in: runIds }, instanceId, status: "running" }, data: { leaseUntil } });
  const held = await db.run.findMany({ where: { id: { in: runIds }, instanceId, status: "running" }, select: { id: true, cancelRequested: true } });
  return { held: held.map((run) => run.id), cancelRequested: held.filter((run) => run.cancelRequested).map((run) => run.id) };
}

export async function requestCancel(runId: string): Promise<void> {
  await db.run.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
}

/** Running runs whose lease ran out before `now` (all running runs for `now` = null): their instance is gone. */
export function abandonedRuns(now: Date | null) {
  return db.run.findMany({
    where: { status: "running", ...(now ? { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] } : {}) },
    select: { id: true, conversationId: true, model: true, cancelRequested: true, leaseUntil: true, conversation: { select: { ownerId: true, profile: true } } },
  });
}
export type AbandonedRun = Awaited<ReturnType<typeof abandonedRuns>>[number];

/** Take an abandoned run for `instanceId`; false when another instance was faster or its owner came back. */
export async function takeOverRun(run: Pick<AbandonedRun, "id" | "leaseUntil">, instanceId: string, leaseUntil: Date): Promise<boolean> {
  const { count } = await db.run.updateMany({ where: { id: run.id, status: "running", leaseUntil: run.leaseUntil }, data: { instanceId, leaseUntil } });
  return count === 1;
}
