import { db, sql } from "@/lib/db/driver/client";

/*
 * The tables of reviews (lib/review/): annotations, verdicts, who reviews a conversation as which number, and the
 * names identities sign with. What every viewer sees of them is in the conversation's event log.
 */

/** The run of a card of the conversation's log: a step's step_started or a tool call's tool_call; else undefined. */
export async function runOfCard(conversationId: string, eventId: number): Promise<string | undefined> {
  const [row] = await sql.rows<{ runId: string }>(
    `SELECT "runId" FROM "Event" WHERE "conversationId" = ? AND "seq" = ? AND "type" IN ('step_started', 'tool_call')`,
    [conversationId, eventId],
  );
  return row?.runId;
}

export async function runOfConversation(conversationId: string, runId: string): Promise<boolean> {
  return (await db.run.count({ where: { id: runId, conversationId } })) > 0;
}

export function createAnnotation(data: {
  conversationId: string;
  runId: string;
  eventId: number;
  label: string;
  note: string;
  authorId: string;
}) {
  return db.annotation.create({ data });
}

export function findAnnotation(conversationId: string, id: string) {
  return db.annotation.findFirst({ where: { id, conversationId } });
}

export async function deleteAnnotation(id: string): Promise<boolean> {
  return (await db.annotation.deleteMany({ where: { id } })).count > 0;
}

/** A reviewer's verdict on a run, replacing the one they gave before. */
export function upsertVerdict(data: {
  conversationId: string;
  runId: string;
  authorId: string;
  verdict: "up" | "down";
  note: string | null;
}) {
  const { runId, authorId, ...rest } = data;
  return db.verdict.upsert({
    where: { runId_authorId: { runId, authorId } },
    create: data,
    update: { ...rest, createdAt: new Date() },
  });
}

/** The identity's number among the conversation's reviewers: given on its first review, kept after. */
export async function reviewerNumber(conversationId: string, identityId: string): Promise<number> {
  for (;;) {
    const known = await db.reviewer.findUnique({
      where: { conversationId_identityId: { conversationId, identityId } },
    });
    if (known) return known.number;
    // The next number; when another reviewer takes it at the same moment, nothing is inserted and this reads again.
    await sql.execute(
      `INSERT INTO "Reviewer" ("conversationId", "identityId", "number") SELECT ?, ?, COALESCE(MAX("number"), 0) + 1 FROM "Reviewer" WHERE "conversationId" = ? ON CONFLICT DO NOTHING`,
      [conversationId, identityId, conversationId],
    );
  }
}

export async function displayName(identityId: string): Promise<string | undefined> {
  return (await db.displayName.findUnique({ where: { identityId } }))?.name;
}

export async function setDisplayName(identityId: string, name: string): Promise<void> {
  if (name === "") await db.displayName.deleteMany({ where: { identityId } });
  else await db.displayName.upsert({ where: { identityId }, create: { identityId, name }, update: { name } });
}
