import { db } from "./client";

export type ExecutionStatus = "succeeded" | "failed" | "cancelled";

export interface ExecutionRecord {
  conversationId: string;
  runId: string;
  callId: string;
  toolName: string;
  toolId?: string;
  input: unknown;
  output?: unknown;
  error?: string;
  status: ExecutionStatus;
  durationMs: number;
}

export async function recordExecution(record: ExecutionRecord): Promise<void> {
  await db.toolExecution.create({
    data: {
      ...record,
      input: JSON.stringify(record.input ?? null),
      output: record.output === undefined ? undefined : JSON.stringify(record.output),
      error: record.error?.toWellFormed(),
      durationMs: Math.round(record.durationMs),
    },
  });
}
