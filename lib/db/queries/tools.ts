import { randomUUID } from "node:crypto";
import type { ToolExample } from "@/lib/contract/events";
import { Prisma } from "@/lib/generated/sqlite/client";
import { db, provider, sql, transaction } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { toBoolean, toDate, toInt } from "@/lib/db/driver/sql";
import type { Tool } from "@/lib/contract/responses";
import type { ToolLanguage, ToolSource } from "@/lib/sandbox/languages";
import { callsRecorded } from "@/lib/db/queries/executions";
import { identifierWords, parameterWords, type QueryTerms } from "@/lib/db/queries/tool-words";

export interface NewToolVersion {
  ownerId: string;
  /** Where it is made; null through the API, which makes library tools. */
  conversationId: string | null;
  runId: string | null;
  name: string;
  description: string;
  parametersSchema: Record<string, unknown>;
  /** The language of `code`; absent: JavaScript, as every tool was before Python. */
  language?: ToolLanguage;
  code: string;
  /** Each passed in the sandbox before the version is stored (lib/tools/library/versions.ts). */
  examples: ToolExample[];
  /** The tools its code calls with tools.call; none when absent. */
  uses?: string[];
  /** The secrets its code reads by name; none when absent. */
  secrets?: string[];
}

/** A new version's code and its language: JavaScript when it does not say, as every tool was before Python. */
export const versionSource = (tool: Pick<NewToolVersion, "language" | "code">): ToolSource => ({
  language: tool.language ?? "javascript",
  code: tool.code,
});

export type ToolScope = Tool["scope"];

const view = {
  id: true,
  lineageId: true,
  ownerId: true,
  conversationId: true,
  scope: true,
  deprecated: true,
  name: true,
  description: true,
  parametersSchema: true,
  language: true,
  code: true,
  examples: true,
  failingExamples: true,
  uses: true,
  secrets: true,
  version: true,
  status: true,
  createdAt: true,
} as const;

/** A stored tool version, as every query here returns it. */
export interface ToolRow {
  id: string;
  lineageId: string;
  ownerId: string;
  conversationId: string | null;
  scope: string;
  deprecated: boolean;
  name: string;
  description: string;
  parametersSchema: string;
  /** javascript | python (lib/tools/library/wire.ts reads it as the contract's ToolLanguage). */
  language: string;
  code: string;
  /** JSON: ToolExample[]. */
  examples: string;
  /** JSON: ToolExample[], kept from calls that went wrong; the next version must pass them. */
  failingExamples: string;
  /** JSON: string[], the tools its code calls with tools.call. */
  uses: string;
  /** JSON: string[], the secrets its code reads by name. */
  secrets: string;
  version: number;
  status: string;
  createdAt: Date;
}

/** `view`'s columns, for the statements of the hot path (lib/db/driver/sql.ts). */
const VIEW_COLUMNS = Object.keys(view)
  .map((column) => `"${column}"`)
  .join(", ");
const toolRowOf = (row: Record<keyof ToolRow, unknown>): ToolRow => ({
  ...(row as ToolRow),
  deprecated: toBoolean(row.deprecated),
  version: toInt(row.version),
  createdAt: toDate(row.createdAt),
});

/**
 * The tools a conversation sees, by name: its own, and its owner's library (its own win a clash of names).
 * Parameters: the owner, then the conversation (null through the API, which sees the library only).
 */
const VISIBLE_IN = `"ownerId" = ? AND (("conversationId" = ? AND "scope" = 'conversation') OR "scope" = 'library')`;

/**
 * Store a tool as the next version of the tool of that name its author can see (the conversation's own first,
 * then the library's), or as a new tool. Earlier versions stay readable and callable by version.
 */
export function saveToolVersion(tool: NewToolVersion): Promise<ToolRow> {
  return transaction(async (tx) => {
    // Every registration runs this, so it is SQL too (lib/db/driver/sql.ts), inside Prisma's transaction.
    const statements = sql.within(tx);
    const latest = await statements.rows<{ lineageId: string; version: unknown; scope: string }>(
      `SELECT "lineageId", "version", "scope" FROM "Tool" WHERE ${VISIBLE_IN} AND "name" = ? AND "status" = 'active'`,
      [tool.ownerId, tool.conversationId, tool.name],
    );
    const previous = latest.find((row) => row.scope === "conversation") ?? latest[0];
    // A new version supersedes the latest one, and brings a deprecated tool back into use.
    if (previous) {
      await statements.execute(
        `UPDATE "Tool" SET "status" = 'superseded' WHERE "lineageId" = ? AND "status" = 'active'`,
        [previous.lineageId],
      );
      await statements.execute(`UPDATE "Tool" SET "deprecated" = ? WHERE "lineageId" = ? AND "deprecated" = ?`, [
        false,
        previous.lineageId,
        true,
      ]);
    }
    const id = randomUUID();
    const row: ToolRow = {
      id,
      lineageId: previous?.lineageId ?? id,
      ownerId: tool.ownerId,
      conversationId: tool.conversationId,
      scope: previous?.scope ?? (tool.conversationId ? "conversation" : "library"),
      deprecated: false,
      name: tool.name,
      // The model wrote these: a lone surrogate, which the database refuses, becomes U+FFFD.
      description: tool.description.toWellFormed(),
      language: versionSource(tool).language,
      code: tool.code.toWellFormed(),
      parametersSchema: JSON.stringify(tool.parametersSchema),
      examples: JSON.stringify(tool.examples),
      failingExamples: "[]",
      uses: JSON.stringify(tool.uses ?? []),
      secrets: JSON.stringify(tool.secrets ?? []),
      version: (previous ? toInt(previous.version) : 0) + 1,
      status: "active",
      createdAt: databaseClock.now(),
    };
    await statements.execute(
      `INSERT INTO "Tool" ("id", "lineageId", "ownerId", "conversationId", "runId", "scope", "deprecated", "name", "description", "parametersSchema", "language", "code", "examples", "uses", "secrets", "version", "status", "createdAt", "nameWords", "parameterWords") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.lineageId,
        row.ownerId,
        row.conversationId,
        tool.runId,
        row.scope,
        row.deprecated,
        row.name,
        row.description,
        row.parametersSchema,
        row.language,
        row.code,
        row.examples,
        row.uses,
        row.secrets,
        row.version,
        row.status,
        row.createdAt,
        identifierWords(tool.name),
        parameterWords(tool.parametersSchema),
      ],
    );
    return row;
  });
}

/**
 * The latest version of every tool made in a conversation, including those since put in the library: a run offers
 * them all, next to the library tools that fit its message (lib/retrieval). Deprecated tools are not offered.
 */
export async function listConversationOwnTools(conversationId: string, ownerId: string): Promise<ToolRow[]> {
  const rows = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM "Tool" WHERE "ownerId" = ? AND "conversationId" = ? AND "status" = 'active' AND "deprecated" = ? ORDER BY "createdAt"`,
    [ownerId, conversationId, false],
  );
  return rows.map(toolRowOf);
}

/**
 * The latest version of a library tool by name, if it is offered: a run may call one it was not shown, and an MCP
 * client any. Should two library tools share the name (one moved from a conversation), the newest wins.
 */
export async function findLibraryTool(ownerId: string, name: string): Promise<ToolRow | null> {
  const [row] = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM "Tool" WHERE "ownerId" = ? AND "name" = ? AND "scope" = 'library' AND "status" = 'active' AND "deprecated" = ? ORDER BY "createdAt" DESC LIMIT 1`,
    [ownerId, name, false],
  );
  return row ? toolRowOf(row) : null;
}

/**
 * The latest version of each of an owner's tools that calls other tools (its `uses` is not empty): who uses a tool,
 * for the library, and whose examples run again when a tool they use gets a new version.
 */
export async function toolsWithUses(ownerId: string): Promise<ToolRow[]> {
  const rows = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM "Tool" WHERE "ownerId" = ? AND "status" = 'active' AND "uses" <> '[]' ORDER BY "name"`,
    [ownerId],
  );
  return rows.map(toolRowOf);
}

/**
 * An owner's library tools (offered ones: active, not deprecated), most recently used first: used is called (from
 * chat, the API or MCP, any version) or saved (a new version), whichever came later, so a tool never called counts
 * from when it was saved. Ties by name. None of the names in `except`: a run already offers those.
 */
export async function recentlyUsedLibraryTools(ownerId: string, except: string[], limit: number): Promise<ToolRow[]> {
  if (limit <= 0) return [];
  await callsRecorded();
  const rows = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM (
      SELECT ${VIEW_COLUMNS}, (
        SELECT max(e."createdAt") FROM "ToolExecution" e JOIN "Tool" v ON v."id" = e."toolId" WHERE v."lineageId" = t."lineageId"
      ) AS "calledAt"
      FROM "Tool" t
      WHERE t."ownerId" = ? AND t."scope" = 'library' AND t."status" = 'active' AND t."deprecated" = ?${except.length > 0 ? ` AND t."name" NOT IN (${except.map(() => "?").join(", ")})` : ""}
    ) r
    ORDER BY CASE WHEN r."calledAt" > r."createdAt" THEN r."calledAt" ELSE r."createdAt" END DESC, r."name", r."id"
    LIMIT ?`,
    [ownerId, false, ...except, limit],
  );
  return rows.map(toolRowOf);
}

/** Every version of every tool made in a conversation, for its trace's Tools tab. */
export function listConversationTools(conversationId: string) {
  return db.tool.findMany({ where: { conversationId }, orderBy: [{ name: "asc" }, { version: "asc" }], select: view });
}

export interface ToolQuery {
  deprecated?: boolean;
  scope?: ToolScope;
  language?: ToolLanguage;
  /** Case-insensitive, over name and description. */
  q?: string;
  /** Absent: every one (SEAT's lists are not paged). */
  limit?: number;
  /** From the previous page: the name and id it ended with. */
  after?: { name: string; id: string };
}

/** A page of an identity's tools (their latest versions), by name. */
export async function listOwnedTools(ownerId: string, query: ToolQuery) {
  const { after } = query;
  // The text search's own predicate (toolIdsContaining): Prisma's `contains` would read `%` and `_` as wildcards.
  const containing = query.q ? await toolIdsContaining(ownerId, query.q, "owned") : undefined;
  return db.tool.findMany({
    where: {
      ownerId,
      status: "active",
      deprecated: query.deprecated,
      scope: query.scope,
      language: query.language,
      ...(containing ? { id: { in: containing } } : {}),
      ...(after ? { OR: [{ name: { gt: after.name } }, { name: after.name, lineageId: { gt: after.id } }] } : {}),
    },
    orderBy: [{ name: "asc" }, { lineageId: "asc" }],
    take: query.limit,
    select: view,
  });
}

/** A tool (the given version, or the latest) if `ownerId` owns it: the ownership check of every /api/tools route. */
export async function findOwnedTool(lineageId: string, ownerId: string, version?: number): Promise<ToolRow | null> {
  const [row] = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM "Tool" WHERE "lineageId" = ? AND "ownerId" = ? AND ${version === undefined ? `"status" = 'active'` : `"version" = ?`} LIMIT 1`,
    version === undefined ? [lineageId, ownerId] : [lineageId, ownerId, version],
  );
  return row ? toolRowOf(row) : null;
}

/** When each tool's first version was made (SEAT's `created_at`), for those with more than one version. */
export async function firstVersionTimes(lineageIds: string[]): Promise<Map<string, Date>> {
  if (lineageIds.length === 0) return new Map();
  const groups = await db.tool.groupBy({
    by: ["lineageId"],
    where: { lineageId: { in: lineageIds } },
    _min: { createdAt: true },
  });
  return new Map(groups.map((group) => [group.lineageId, group._min.createdAt!]));
}

export function listToolVersions(lineageId: string) {
  return db.tool.findMany({ where: { lineageId }, orderBy: { version: "asc" }, select: view });
}

/** Scope and deprecation belong to the tool, so they change on every version; the description on the latest. */
export async function updateTool(
  lineageId: string,
  change: { scope?: ToolScope; deprecated?: boolean; description?: string },
) {
  const { description, ...everyVersion } = change;
  await db.$transaction([
    db.tool.updateMany({ where: { lineageId }, data: everyVersion }),
    ...(description === undefined
      ? []
      : [
          db.tool.updateMany({ where: { lineageId, status: "active" }, data: { description } }),
          // Its embedding was of the old description: the next search embeds it again (lib/retrieval/embeddings.ts).
          db.toolEmbedding.deleteMany({ where: { tool: { lineageId, status: "active" } } }),
        ]),
  ]);
}

/** A version's failing examples, replaced: one more kept from a call that went wrong. */
export async function setFailingExamples(versionId: string, examples: ToolExample[]): Promise<void> {
  await db.tool.update({ where: { id: versionId }, data: { failingExamples: JSON.stringify(examples) } });
}

/**
 * The failing examples of the active version a new version of `name` would follow (as saveToolVersion finds it):
 * that new version must pass them.
 */
export async function keptFailingExamples(
  ownerId: string,
  conversationId: string | null,
  name: string,
): Promise<ToolExample[]> {
  const latest = await sql.rows<{ failingExamples: string; scope: string }>(
    `SELECT "failingExamples", "scope" FROM "Tool" WHERE ${VISIBLE_IN} AND "name" = ? AND "status" = 'active'`,
    [ownerId, conversationId, name],
  );
  const previous = latest.find((row) => row.scope === "conversation") ?? latest[0];
  return previous ? (JSON.parse(previous.failingExamples) as ToolExample[]) : [];
}

/** A version's examples, replaced: one more kept from an execution (it passed against this version first). */
export async function setToolExamples(versionId: string, examples: ToolExample[]): Promise<void> {
  await db.tool.update({ where: { id: versionId }, data: { examples: JSON.stringify(examples) } });
}

export async function deleteTool(lineageId: string): Promise<void> {
  await db.tool.deleteMany({ where: { lineageId } });
}

/** Which tools a search looks at: the library (what runs are offered), or every tool of the owner (the REST API). */
export type SearchScope = "library" | "owned";

const searchable = (ownerId: string, scope: SearchScope) =>
  Prisma.sql`t."ownerId" = ${ownerId} AND t."status" = 'active'${scope === "library" ? Prisma.sql` AND t."scope" = 'library' AND t."deprecated" = ${false}` : Prisma.empty}`;

/** A piece of text as a LIKE pattern that matches it as written: `%` and `_` are no wildcards, `\` no escape. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, "\\$&")}%`;

/**
 * The ids of the searchable tools whose name or description contains `text` (case-insensitive: SQLite's LIKE for
 * ASCII letters, PostgreSQL's ILIKE for all), by name, the first `limit` or all: SEAT's substring search. Ids only,
 * and as SQL: the search reads the rows of the tools it answers with once, and this runs on every search.
 */
export async function toolIdsContaining(
  ownerId: string,
  text: string,
  scope: SearchScope,
  limit?: number,
): Promise<string[]> {
  const like = provider === "postgresql" ? "ILIKE" : "LIKE";
  const pattern = containing(text);
  const rows = await sql.rows<{ id: string }>(
    `SELECT "id" FROM "Tool" WHERE "ownerId" = ? AND "status" = 'active'${scope === "library" ? ` AND "scope" = 'library' AND "deprecated" = ?` : ""}
    AND ("name" ${like} ? ESCAPE '\\' OR "description" ${like} ? ESCAPE '\\')
    ORDER BY "name", "lineageId"${limit === undefined ? "" : " LIMIT ?"}`,
    [ownerId, ...(scope === "library" ? [false] : []), pattern, pattern, ...(limit === undefined ? [] : [limit])],
  );
  return rows.map((row) => row.id);
}

/**
 * Words this long are matched as prefixes too, stemmed: "borrowing" finds "borrowed", "month" finds "monthly"; a
 * shorter word is usually a word of its own ("time" would find "timezone").
 */
const MIN_PREFIX_CHARS = 5;
/** PostgreSQL ranks this many of the tools matching any word closely: those with the rarest words. */
const SHORTLIST = 200;

/**
 * The ids of the tools matching any of the words (lib/db/queries/tool-words.ts: letters and digits only), best first by
 * BM25: rare words count more than common ones, a word in the name twice as much as one in the description or
 * the parameters, and a tool with the query's neighbouring words in that order more; ties by name, so that the
 * same library always ranks the same way. Stemmed on both providers:
 * SQLite's FTS5 table "ToolText" (its bm25), PostgreSQL's "searchDocument" tsvector (BM25's idf over ts_rank).
 */
export async function fullTextToolIds(
  ownerId: string,
  { words, pairs }: QueryTerms,
  scope: SearchScope,
  limit: number,
): Promise<string[]> {
  if (words.length === 0) return [];
  const prefix = (word: string) => word.length >= MIN_PREFIX_CHARS;
  if (provider === "sqlite") {
    const match = [...words.map((word) => `"${word}"${prefix(word) ? "*" : ""}`), ...pairs.map((pair) => `"${pair}"`)];
    const rows = await db.$queryRaw<{ id: string }[]>`
      SELECT t."id", t."name" FROM "ToolText" JOIN "Tool" t ON t."id" = "ToolText"."toolId"
      WHERE "ToolText" MATCH ${match.join(" OR ")} AND ${searchable(ownerId, scope)}
      ORDER BY bm25("ToolText", 0, 2.0, 1.0, 1.0), t."name", t."id"
      LIMIT ${limit}`;
    return rows.map((row) => row.id);
  }
  const terms = [
    ...words.map((word) => Prisma.sql`to_tsquery('english', ${prefix(word) ? `${word}:*` : word})`),
    ...pairs.map((pair) => Prisma.sql`phraseto_tsquery('english', ${pair})`),
  ];
  const idf = (index: number) => Prisma.raw(`idf.i${index}`);
  const sum = (each: (term: Prisma.Sql, index: number) => Prisma.Sql) => Prisma.join(terms.map(each), " + ");
  // BM25's idf of each term over the owner's tools (ts_rank knows none), times how the tool has it: first whether
  // it does, which is cheap, to shortlist; then ts_rank, whose weights {D, C, B, A} count the description (C) and
  // parameters (B) half as much as the name (A), over the shortlist only: over thousands of tools it is too slow.
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH candidates AS MATERIALIZED (
      SELECT t."id", t."name", t."searchDocument" AS "document" FROM "Tool" t
      WHERE t."searchDocument" @@ (${Prisma.join(terms, " || ")}) AND ${searchable(ownerId, scope)}
    ),
    total AS (SELECT count(*) AS n FROM "Tool" t WHERE ${searchable(ownerId, scope)}),
    df AS (SELECT ${Prisma.join(
      terms.map(
        (term, index) => Prisma.sql`count(*) FILTER (WHERE "document" @@ ${term}) AS ${Prisma.raw(`d${index}`)}`,
      ),
      ", ",
    )} FROM candidates),
    idf AS (SELECT ${Prisma.join(
      terms.map(
        (_, index) =>
          Prisma.sql`ln(1 + (total.n - df.${Prisma.raw(`d${index}`)} + 0.5) / (df.${Prisma.raw(`d${index}`)} + 0.5)) AS ${Prisma.raw(`i${index}`)}`,
      ),
      ", ",
    )} FROM total, df),
    shortlist AS MATERIALIZED (
      SELECT c.* FROM candidates c, idf
      ORDER BY ${sum((term, index) => Prisma.sql`${idf(index)} * (c."document" @@ ${term})::int`)} DESC, c."name", c."id"
      LIMIT ${SHORTLIST}
    )
    SELECT s."id" FROM shortlist s, idf
    ORDER BY ${sum((term, index) => Prisma.sql`${idf(index)} * ts_rank('{0, 0.5, 0.5, 1}', s."document", ${term})`)} DESC, s."name", s."id"
    LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

/**
 * Every searchable tool, with the hash of the text `model` embedded for it (null when it has not): ids and hashes
 * only, since a search reads them all to compare its query with each.
 */
export function embeddingCandidates(
  ownerId: string,
  scope: SearchScope,
  model: string,
): Promise<{ id: string; textHash: string | null }[]> {
  return db.$queryRaw<{ id: string; textHash: string | null }[]>`
    SELECT t."id", e."textHash" FROM "Tool" t
    LEFT JOIN "ToolEmbedding" e ON e."toolId" = t."id" AND e."model" = ${model}
    WHERE ${searchable(ownerId, scope)}`;
}

/** The text a tool version's embedding is made from: the words of its name, its description and its parameters. */
export async function embeddingTexts(ids: string[]): Promise<{ id: string; text: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db.tool.findMany({
    where: { id: { in: ids } },
    select: { id: true, nameWords: true, description: true, parameterWords: true },
  });
  return rows.map((row) => ({
    id: row.id,
    text: `${row.nameWords}: ${row.description}${row.parameterWords ? ` (${row.parameterWords})` : ""}`,
  }));
}

/** Tool versions by id, in no particular order. */
export async function toolsByIds(ids: string[]): Promise<ToolRow[]> {
  if (ids.length === 0) return [];
  const rows = await sql.rows<Record<keyof ToolRow, unknown>>(
    `SELECT ${VIEW_COLUMNS} FROM "Tool" WHERE "id" IN (${ids.map(() => "?").join(", ")})`,
    ids,
  );
  return rows.map(toolRowOf);
}
