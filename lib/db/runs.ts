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

/** Runs still marked running: at start-up, the ones a stopped process left behind. */
export function listUnfinishedRuns() {
  return db.run.findMany({ where: { status: "running" }, select: { id: true, conversationId: true, steps: true } });
}
