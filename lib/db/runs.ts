import { db } from "./client";
import type { RunStatus } from "@/lib/events/types";

export function createRun(data: { id: string; conversationId: string; model: string }) {
  return db.run.create({ data });
}

export async function finishRun(id: string, status: RunStatus, steps: number): Promise<void> {
  await db.run.update({ where: { id }, data: { status, steps, finishedAt: new Date() } });
}

export function listRuns(conversationId: string) {
  return db.run.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { id: true, status: true, model: true, steps: true, createdAt: true, finishedAt: true },
  });
}

/** Runs left "running" by a process that stopped: nothing will finish them now. */
export async function abandonStaleRuns(activeRunIds: string[]): Promise<void> {
  await db.run.updateMany({
    where: { status: "running", id: { notIn: activeRunIds } },
    data: { status: "error", finishedAt: new Date() },
  });
}
