import { db } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
/** Where a file's bytes are (lib/files/store.ts). */
export type StorageKind = "database" | "s3";

export interface FileRow {
  id: string;
  conversationId: string;
  ownerId: string;
  path: string;
  name: string;
  size: number;
  mimeType: string;
  sha256: string;
  source: string;
  runId: string | null;
  callId: string | null;
  toolName: string | null;
  messageId: string | null;
  preview: string | null;
  blobId: string;
  storage: string;
  createdAt: Date;
  updatedAt: Date;
}

export type NewFile = Pick<
  FileRow,
  "conversationId" | "ownerId" | "path" | "name" | "size" | "mimeType" | "sha256" | "source" | "blobId"
> & { storage: StorageKind; runId?: string; callId?: string; toolName?: string; preview?: string | null };

export function insertFile(file: NewFile): Promise<FileRow> {
  const now = databaseClock.now();
  return db.conversationFile.create({ data: { ...file, createdAt: now, updatedAt: now } });
}

/** A file of any conversation: the callers check who may see it (lib/files/access.ts). */
export function findFile(id: string): Promise<FileRow | null> {
  return db.conversationFile.findUnique({ where: { id } });
}

export function findFileByPath(conversationId: string, path: string): Promise<FileRow | null> {
  return db.conversationFile.findUnique({ where: { conversationId_path: { conversationId, path } } });
}

/** A conversation's files, in the order they came. */
export function listFiles(conversationId: string): Promise<FileRow[]> {
  return db.conversationFile.findMany({ where: { conversationId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** The paths already taken in a conversation, for a new upload's name. */
export async function takenPaths(conversationId: string): Promise<string[]> {
  const rows = await db.conversationFile.findMany({ where: { conversationId }, select: { path: true } });
  return rows.map((row) => row.path);
}

/** Bytes stored for a conversation, or for every conversation of an identity. */
export async function storedBytes(where: { conversationId: string } | { ownerId: string }): Promise<number> {
  const { _sum } = await db.conversationFile.aggregate({ where, _sum: { size: true } });
  return _sum.size ?? 0;
}

/** A tool's new version of a file: its new bytes and who wrote them. Returns the blob it replaced. */
export async function replaceFileBytes(
  id: string,
  bytes: Pick<FileRow, "size" | "sha256" | "mimeType" | "blobId"> & { storage: StorageKind },
  writer: { runId?: string; callId?: string; toolName?: string },
): Promise<{ row: FileRow; replaced: { blobId: string; storage: string } } | null> {
  const before = await db.conversationFile.findUnique({ where: { id }, select: { blobId: true, storage: true } });
  if (!before) return null;
  const row = await db.conversationFile.update({
    where: { id },
    data: { ...bytes, ...writer, source: "tool", updatedAt: databaseClock.now() },
  });
  return { row, replaced: before };
}

/** The files' rows go; their blobs are the caller's to remove (returned). */
export async function deleteFileRows(ids: string[]): Promise<{ blobId: string; storage: string }[]> {
  if (ids.length === 0) return [];
  const blobs = await db.conversationFile.findMany({
    where: { id: { in: ids } },
    select: { blobId: true, storage: true },
  });
  await db.conversationFile.deleteMany({ where: { id: { in: ids } } });
  return blobs;
}

/** The blobs of some conversations' files (read before the conversations are deleted, to remove them after). */
export function blobsOfConversations(conversationIds: string[]): Promise<{ blobId: string; storage: string }[]> {
  return db.conversationFile.findMany({
    where: { conversationId: { in: conversationIds } },
    select: { blobId: true, storage: true },
  });
}

/** The message attaches these files of its conversation that no message has attached yet. */
export async function attachFiles(conversationId: string, messageId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.conversationFile.updateMany({
    where: { id: { in: ids }, conversationId, messageId: null },
    data: { messageId },
  });
}

/** Copies of a conversation's files for its fork, with their new blobs (already written by the caller). */
export async function insertFileCopies(rows: FileRow[]): Promise<void> {
  if (rows.length > 0) await db.conversationFile.createMany({ data: rows });
}

/** The files of a conversation among `ids` that no message has attached yet: those a new message may attach. */
export function unattachedFiles(conversationId: string, ids: string[]): Promise<FileRow[]> {
  return db.conversationFile.findMany({ where: { id: { in: ids }, conversationId, messageId: null } });
}
