import type { RunStatus } from "@/lib/contract/events";
import { db, liveSql, sql } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { isUniqueViolation, toBoolean } from "@/lib/db/driver/sql";

/**
 * Insert the conversation's running run, leased to `instanceId` until `leaseUntil` under `claim`: the claim. False
 * when the conversation already has a running run, on any instance (the partial unique index refuses a second one).
 */
export async function claimRun(data: {
  id: string;
  conversationId: string;
  model: string;
  instanceId: string;
  claim: string;
  leaseUntil: Date;
}): Promise<boolean> {
  try {
    await sql.execute(
      `INSERT INTO "Run" ("id", "conversationId", "status", "model", "steps", "createdAt", "instanceId", "claim", "leaseUntil", "cancelRequested") VALUES (?, ?, 'running', ?, 0, ?, ?, ?, ?, ?)`,
      [
        data.id,
        data.conversationId,
        data.model,
        databaseClock.now(),
        data.instanceId,
        data.claim,
        data.leaseUntil,
        false,
      ],
    );
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * Finish a run, only under the claim the row still has: false, changing nothing, once it was taken over. True when
 * finished already with the same `finishedAt` (an attempt whose answer was lost), so it is safe to send again.
 */
export async function finishRun(
  id: string,
  status: RunStatus,
  steps: number,
  claim: string,
  finishedAt = databaseClock.now(),
): Promise<boolean> {
  const changed = await sql.execute(
    `UPDATE "Run" SET "status" = ?, "steps" = ?, "finishedAt" = ?, "leaseUntil" = NULL WHERE "id" = ? AND "claim" = ?`,
    [status, steps, finishedAt, id, claim],
  );
  if (changed === 1) return true;
  const finished = await sql.rows(
    `SELECT "id" FROM "Run" WHERE "id" = ? AND "claim" IS NULL AND "status" = ? AND "steps" = ? AND "finishedAt" = ?`,
    [id, status, steps, finishedAt],
  );
  return finished.length === 1;
}

/**
 * End a finished run's claim: a write of its events that comes later is refused (lib/db/queries/events.ts
 * FENCED_EVENT_INSERT), and the writes in progress are stored first (changing the unique claim waits for them).
 */
export async function endClaimOfFinishedRun(id: string): Promise<void> {
  await sql.execute(`UPDATE "Run" SET "claim" = NULL WHERE "id" = ? AND "status" <> 'running'`, [id]);
}

export function listRuns(conversationId: string) {
  return db.run.findMany({
    where: { conversationId },
    orderBy: { createdAt: "asc" },
    select: { id: true, status: true, model: true, steps: true, createdAt: true, finishedAt: true },
  });
}

/** The conversation a run belongs to, with its owner: a run's id is enough to find it anywhere. */
export async function conversationOfRun(runId: string) {
  const run = await db.run.findUnique({
    where: { id: runId },
    select: {
      conversation: {
        select: { id: true, ownerId: true, title: true, profile: true, createdAt: true, updatedAt: true },
      },
    },
  });
  return run?.conversation ?? null;
}

/** The conversation's running run, on whichever instance executes it. */
export async function runningRun(
  conversationId: string,
): Promise<{ id: string; instanceId: string | null; cancelRequested: boolean } | null> {
  const [run] = await sql.rows<{ id: string; instanceId: string | null; cancelRequested: unknown }>(
    `SELECT "id", "instanceId", "cancelRequested" FROM "Run" WHERE "conversationId" = ? AND "status" = 'running' LIMIT 1`,
    [conversationId],
  );
  return run ? { ...run, cancelRequested: toBoolean(run.cancelRequested) } : null;
}

/** Of these conversations, the ones with a running run, on any instance. */
export async function conversationsRunning(conversationIds: string[]): Promise<Set<string>> {
  const runs = await db.run.findMany({
    where: { conversationId: { in: conversationIds }, status: "running" },
    select: { conversationId: true },
  });
  return new Set(runs.map((run) => run.conversationId));
}

/**
 * Extend the leases of runs this instance executes (the heartbeat) to `leaseUntil`, never shortening one (a late
 * answer to an earlier heartbeat) nor renewing one given up (null). Returns the runs it still holds (another
 * instance may have taken over a run whose lease ran out) and, of those, the ones a Stop was asked for elsewhere.
 */
export async function renewLeases(
  instanceId: string,
  runIds: string[],
  leaseUntil: Date,
): Promise<{ held: string[]; cancelRequested: string[] }> {
  if (runIds.length === 0) return { held: [], cancelRequested: [] };
  const rows = await liveSql.rows<{ id: string; cancelRequested: unknown; leaseUntil: unknown }>(
    `UPDATE "Run" SET "leaseUntil" = CASE WHEN "leaseUntil" < ? THEN ? ELSE "leaseUntil" END WHERE ${OWN_RUNNING(runIds)} RETURNING "id", "cancelRequested", "leaseUntil"`,
    [leaseUntil, leaseUntil, ...runIds, instanceId],
  );
  // A lease given up is not held, whoever takes the run next.
  const held = rows.filter((run) => run.leaseUntil !== null);
  return {
    held: held.map((run) => run.id),
    cancelRequested: held.filter((run) => toBoolean(run.cancelRequested)).map((run) => run.id),
  };
}

/**
 * Of these claims, the ones some run's row still has, running or finished: a run whose claim is gone was taken over
 * (lib/runs/claims.ts), while one that is no longer running under its own claim has stored its end.
 */
export async function heldClaims(claims: string[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await liveSql.rows<{ claim: string }>(
    `SELECT "claim" FROM "Run" WHERE "claim" IN (${claims.map(() => "?").join(", ")})`,
    claims,
  );
  return new Set(rows.map(({ claim }) => claim));
}

/** Give leases up (a stopping instance), so that another instance takes the runs over at once. */
export async function releaseLeases(instanceId: string, runIds: string[]): Promise<void> {
  if (runIds.length > 0)
    await liveSql.execute(`UPDATE "Run" SET "leaseUntil" = NULL WHERE ${OWN_RUNNING(runIds)}`, [...runIds, instanceId]);
}

/** These runs, where this instance executes them and they are running; parameters: the run ids, the instance. */
const OWN_RUNNING = (runIds: string[]) =>
  `"id" IN (${runIds.map(() => "?").join(", ")}) AND "instanceId" = ? AND "status" = 'running'`;

export async function requestCancel(runId: string): Promise<void> {
  await db.run.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
}

/** Running runs whose lease ran out before `now` (all running runs for `now` = null): their instance is gone. */
export function abandonedRuns(now: Date | null) {
  return db.run.findMany({
    where: { status: "running", ...(now ? { OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] } : {}) },
    select: {
      id: true,
      conversationId: true,
      model: true,
      cancelRequested: true,
      leaseUntil: true,
      conversation: { select: { ownerId: true, profile: true } },
    },
  });
}
export type AbandonedRun = Awaited<ReturnType<typeof abandonedRuns>>[number];

/**
 * Take an abandoned run for `instanceId`, under a new `claim`; false when another instance was faster or its owner
 * came back. Changing the claim, a unique column, locks the row FOR UPDATE: the takeover waits for the earlier
 * claim's event writes in progress (lib/db/queries/events.ts), and refuses its later ones.
 */
export async function takeOverRun(
  run: Pick<AbandonedRun, "id" | "leaseUntil">,
  instanceId: string,
  claim: string,
  leaseUntil: Date,
): Promise<boolean> {
  const { count } = await db.run.updateMany({
    where: { id: run.id, status: "running", leaseUntil: run.leaseUntil },
    data: { instanceId, claim, leaseUntil },
  });
  return count === 1;
}
