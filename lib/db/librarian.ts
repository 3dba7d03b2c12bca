import { Prisma } from "@/lib/generated/prisma/client";
import { db } from "./client";

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
  await db.librarianDocument.upsert({ where, create: { ...document, bytes }, update: { content: document.content, text: document.text, bytes } });
  return { created: !existing };
}

export function findDocument(ownerId: string, collection: string, name: string) {
  return db.librarianDocument.findUnique({ where: { ownerId_collection_name: { ownerId, collection, name } }, select: { content: true, updatedAt: true } });
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
 * Search terms as an FTS5 query: words, and "quoted phrases", each matched as a literal (FTS5's operators and
 * column filters in the input are only text), all of them required.
 */
function fullTextMatch(terms: string): string | undefined {
  const parts = [...terms.matchAll(/"([^"]*)"|([\p{L}\p{N}_]+)/gu)]
    .map(([, phrase, word]) => (phrase ?? word).match(/[\p{L}\p{N}_]+/gu)?.join(" "))
    .filter((part): part is string => Boolean(part))
    .slice(0, 32);
  return parts.length ? parts.map((part) => `"${part}"`).join(" ") : undefined;
}

export interface SearchHit {
  collection: string;
  name: string;
  /** Higher is better (SQLite's bm25, negated). */
  score: number;
  snippet: string;
}

/**
 * Full-text search over one person's documents, best first, with the matched words in ** in the snippet.
 * SQLite FTS5 here; PostgreSQL's full-text search takes this function's place there, behind the same signature.
 */
export async function searchDocuments(ownerId: string, terms: string, collection: string | null, limit: number): Promise<SearchHit[]> {
  const match = fullTextMatch(terms);
  if (match === undefined) return [];
  const prefix = collection === null ? null : `${collection}/`;
  const rows = await db.$queryRaw<{ collection: string; name: string; rank: number; snippet: string }[]>`
    SELECT d."collection", d."name", bm25("LibrarianDocumentText") AS rank,
           snippet("LibrarianDocumentText", 0, '**', '**', '…', 24) AS snippet
    FROM "LibrarianDocumentText" JOIN "LibrarianDocument" d ON d."id" = "LibrarianDocumentText".rowid
    WHERE "LibrarianDocumentText" MATCH ${match} AND d."ownerId" = ${ownerId}
      AND (${collection} IS NULL OR d."collection" = ${collection} OR substr(d."collection", 1, length(${prefix})) = ${prefix})
    ORDER BY rank
    LIMIT ${limit}`;
  return rows.map((row) => ({ collection: row.collection, name: row.name, score: Math.round(-row.rank * 1000) / 1000, snippet: row.snippet }));
}
