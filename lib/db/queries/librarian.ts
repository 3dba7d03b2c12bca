import { Prisma } from "@/lib/generated/sqlite/client";
import { db, provider } from "@/lib/db/driver/client";

export interface StoredDocument {
  ownerId: string;
  collection: string;
  name: string;
  content: string;
  text: string;
}

/** Store or replace a document; true when it is new. */
export async function storeDocument(document: StoredDocument): Promise<{ created: boolean }> {
  const { ownerId, collection, name } = document;
  const bytes = Buffer.byteLength(document.content);
  const where = { ownerId_collection_name: { ownerId, collection, name } };
  const existing = await db.librarianDocument.findUnique({ where, select: { id: true } });
  await db.librarianDocument.upsert({
    where,
    create: { ...document, bytes },
    update: { content: document.content, text: document.text, bytes },
  });
  return { created: !existing };
}

export function findDocument(ownerId: string, collection: string, name: string) {
  return db.librarianDocument.findUnique({
    where: { ownerId_collection_name: { ownerId, collection, name } },
    select: { content: true, updatedAt: true },
  });
}

export function countDocuments(ownerId: string): Promise<number> {
  return db.librarianDocument.count({ where: { ownerId } });
}

/** A collection and the collections under it; the whole library for null. */
const within = (collection: string | null): Prisma.LibrarianDocumentWhereInput =>
  collection === null ? {} : { OR: [{ collection }, { collection: { startsWith: `${collection}/` } }] };

/** The documents a query reads, at most `limit` (one more tells the caller there are too many). */
export function documentsIn(ownerId: string, collection: string | null, limit: number) {
  return db.librarianDocument.findMany({
    where: { ownerId, ...within(collection) },
    select: { id: true, collection: true, name: true, content: true, updatedAt: true },
    orderBy: [{ collection: "asc" }, { name: "asc" }],
    take: limit + 1,
  });
}

/**
 * Search terms: words, and "quoted phrases" (each a run of words), all of them required. Only letters, digits and
 * _ are kept, so nothing in the input is ever read as the search engine's own syntax.
 */
function searchTerms(terms: string): string[] {
  return [...terms.matchAll(/"([^"]*)"|([\p{L}\p{N}_]+)/gu)]
    .map(([, phrase, word]) => (phrase ?? word).match(/[\p{L}\p{N}_]+/gu)?.join(" "))
    .filter((part): part is string => Boolean(part))
    .slice(0, 32);
}

export interface SearchHit {
  collection: string;
  name: string;
  /** Higher is better: SQLite's bm25 negated, PostgreSQL's ts_rank. */
  score: number;
  snippet: string;
}

type HitRow = { collection: string; name: string; score: number; snippet: string };

/**
 * Full-text search over one person's documents (in a collection and those under it, or all of them), best first,
 * with the matched words in ** in the snippet: SQLite's FTS5 index or PostgreSQL's text search, stemmed alike.
 */
export async function searchDocuments(
  ownerId: string,
  terms: string,
  collection: string | null,
  limit: number,
): Promise<SearchHit[]> {
  const parts = searchTerms(terms);
  if (parts.length === 0) return [];
  const prefix = collection === null ? null : `${collection}/`;
  const inCollection = Prisma.sql`(CAST(${collection} AS TEXT) IS NULL OR d."collection" = ${collection} OR substr(d."collection", 1, length(CAST(${prefix} AS TEXT))) = ${prefix})`;
  const rows =
    provider === "postgresql"
      ? await db.$queryRaw<HitRow[]>`
          WITH q AS (SELECT ${Prisma.join(
            parts.map((part) => Prisma.sql`phraseto_tsquery('english', ${part})`),
            " && ",
          )} AS query)
          SELECT d."collection", d."name", ts_rank(to_tsvector('english', d."text"), q.query) AS score,
                 ts_headline('english', d."text", q.query, 'StartSel=**, StopSel=**, MaxWords=30, MinWords=10') AS snippet
          FROM "LibrarianDocument" d, q
          WHERE to_tsvector('english', d."text") @@ q.query AND d."ownerId" = ${ownerId} AND ${inCollection}
          ORDER BY score DESC
          LIMIT ${limit}`
      : await db.$queryRaw<HitRow[]>`
          SELECT d."collection", d."name", -bm25("LibrarianDocumentText") AS score,
                 snippet("LibrarianDocumentText", 0, '**', '**', '…', 24) AS snippet
          FROM "LibrarianDocumentText" JOIN "LibrarianDocument" d ON d."id" = "LibrarianDocumentText".rowid
          WHERE "LibrarianDocumentText" MATCH ${parts.map((part) => `"${part}"`).join(" ")} AND d."ownerId" = ${ownerId} AND ${inCollection}
          ORDER BY score DESC
          LIMIT ${limit}`;
  return rows.map((row) => ({
    collection: row.collection,
    name: row.name,
    score: Math.round(Number(row.score) * 1000) / 1000,
    snippet: row.snippet,
  }));
}
