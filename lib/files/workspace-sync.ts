import { randomUUID } from "node:crypto";
import { constants, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { isUniqueViolation } from "@/lib/db/driver/sql";
import {
  deleteFileRows,
  findFileByPath,
  insertFile,
  listFiles,
  replaceFileBytes,
  type FileRow,
} from "@/lib/db/queries/files";
import { emptyFolder, sameStamp, stampOf, walkFiles, type FileStamp } from "@/lib/platform/file-tree";
import { processWide } from "@/lib/platform/process-wide";
import { Turns } from "@/lib/platform/turns";
import { config, databaseConfig, workspacesDirectory } from "@/lib/settings/config";
import { quotaProblem } from "./limits";
import { showableName } from "./names";
import { sniffFile } from "./sniff-file";
import { storeOf, writeBlob, FileTooLargeError } from "./store";
import { removeWorkspace, workspaceOf } from "./workspace-path";

/** A file of the workspace as this instance last synced it with the store. */
interface Synced extends FileStamp {
  fileId: string;
  blobId: string;
}

/**
 * The conversation's files as this instance's copy of its workspace holds them, by path. A process that starts
 * anew has none: the first call of a conversation fetches its workspace whole (`openWorkspace`).
 */
const manifests = processWide("workspaceManifests", () => new Map<string, Map<string, Synced>>());
/** One sync of a conversation's workspace at a time on this instance; calls in parallel take turns at it. */
const syncs = processWide("workspaceSyncs", () => new Turns());
const inTurn = <T>(conversationId: string, work: () => Promise<T>) => syncs.run(conversationId, work);

/**
 * The conversation's workspace on this instance, with the files the store holds for it: those uploaded or written
 * on any instance since this one last looked are fetched, those deleted are gone. Returns its folder.
 */
export function openWorkspace(conversationId: string): Promise<string> {
  evictIdleWorkspaces();
  lastUsed.set(conversationId, Date.now());
  return inTurn(conversationId, async () => {
    const root = await workspaceOf(conversationId);
    let manifest = manifests.get(conversationId);
    const rows = await listFiles(conversationId);
    if (!manifest) {
      // What a previous process left here may be stale: the store's is the workspace. On SQLite (one instance) a
      // folder whose conversation stores no file yet is adopted: the file tools' workspace before files were stored.
      if (rows.length > 0 || databaseConfig().provider !== "sqlite") await emptyFolder(root);
      manifests.set(conversationId, (manifest = new Map()));
    }
    const wanted = new Set(rows.map((row) => row.path));
    for (const synced of [...manifest.keys()].filter((name) => !wanted.has(name))) {
      await fs.rm(path.join(root, synced), { force: true });
      manifest.delete(synced);
    }
    for (const row of rows) {
      if (manifest.get(row.path)?.blobId === row.blobId) continue;
      manifest.set(row.path, { ...(await fetchInto(root, row)), fileId: row.id, blobId: row.blobId });
    }
    return root;
  });
}

/** A stored file's bytes into the workspace, written aside and moved in whole (a reader never sees half of it). */
async function fetchInto(root: string, row: FileRow): Promise<FileStamp> {
  const target = path.resolve(root, row.path);
  if (!target.startsWith(root + path.sep))
    throw new Error(`A stored file's path leads out of the workspace: ${row.path}`);
  const incoming = path.join(workspacesDirectory(), ".incoming");
  await fs.mkdir(incoming, { recursive: true });
  const aside = path.join(incoming, randomUUID());
  try {
    await pipeline(storeOf(row.storage as "database" | "s3").get(row.blobId), createWriteStream(aside));
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(aside, target);
  } finally {
    await fs.rm(aside, { force: true });
  }
  return stampOf(await fs.lstat(target));
}

/** Who wrote what a call changed: its files name the call. */
export interface Writer {
  ownerId: string;
  runId?: string;
  callId?: string;
  toolName: string;
}

/** What a call did to the conversation's files. */
export interface WorkspaceChanges {
  /** Files it made or changed, as now stored. */
  written: FileRow[];
  /** Paths of files it deleted. */
  deleted: string[];
  /** Files it wrote that were not kept, each with why (a limit). */
  refused: string[];
}

/**
 * Store what changed in the conversation's workspace since it was synced: new and changed files become (new
 * versions of) the conversation's files, deleted ones are deleted. A file past a limit is removed from the
 * workspace and named in `refused`.
 */
export function storeWorkspace(conversationId: string, writer: Writer): Promise<WorkspaceChanges> {
  return inTurn(conversationId, async () => {
    const root = await workspaceOf(conversationId);
    const manifest = manifests.get(conversationId) ?? new Map<string, Synced>();
    manifests.set(conversationId, manifest);
    const { files: found, truncated } = await walkFiles(root);
    const changes: WorkspaceChanges = { written: [], deleted: [], refused: [] };
    for (const [name, stamp] of found) {
      const synced = manifest.get(name);
      if (synced && sameStamp(synced, stamp)) continue;
      const stored = showableName(name)
        ? await storeFile(conversationId, root, name, stamp, writer, synced?.fileId)
        : `${JSON.stringify(`/${name}`).slice(0, 200)} has control or invisible characters in its name; name files plainly.`;
      if (typeof stored === "string") {
        changes.refused.push(stored);
        await fs.rm(path.join(root, name), { force: true });
        continue;
      }
      manifest.set(name, { ...stamp, fileId: stored.id, blobId: stored.blobId });
      changes.written.push(stored);
    }
    // A walk cut at its limit did not see every file: what it missed is not deleted.
    for (const [name, synced] of truncated ? [] : manifest) {
      if (found.has(name)) continue;
      manifest.delete(name);
      const blobs = await deleteFileRows([synced.fileId]);
      await removeBlobs(blobs);
      changes.deleted.push(name);
    }
    return changes;
  });
}

/** One file of the workspace into the store, as a new file or the next version of one; or why it was not kept. */
async function storeFile(
  conversationId: string,
  root: string,
  name: string,
  stamp: FileStamp,
  writer: Writer,
  knownId: string | undefined,
): Promise<FileRow | string> {
  const existing = (await findFileByPath(conversationId, name)) ?? undefined;
  const problem = await quotaProblem({
    conversationId,
    ownerId: writer.ownerId,
    name: `/${name}`,
    size: stamp.size,
    replacing: existing?.size ?? 0,
  });
  if (problem) return problem;
  const full = path.join(root, name);
  const mimeType = await sniffFile(full, name);
  let blob;
  try {
    // O_NOFOLLOW: what the walk found a file may have been swapped for a link since.
    const handle = await fs.open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
    blob = await writeBlob(
      handle.createReadStream(),
      config.files.maxFileBytes,
      (max) => `/${name} grew past ${max} bytes.`,
    );
  } catch (error) {
    if (error instanceof FileTooLargeError) return error.message;
    throw error;
  }
  const bytes = { ...blob, mimeType };
  const writtenBy = { runId: writer.runId, callId: writer.callId, toolName: writer.toolName };
  const replace = async (id: string) => {
    const replaced = await replaceFileBytes(id, bytes, writtenBy);
    if (replaced) await removeBlobs([replaced.replaced]);
    return replaced?.row;
  };
  const target = existing?.id ?? knownId;
  if (target) {
    const row = await replace(target);
    if (row) return row;
  }
  try {
    return await insertFile({
      conversationId,
      ownerId: writer.ownerId,
      path: name,
      name: path.posix.basename(name),
      source: "tool",
      ...bytes,
      ...writtenBy,
    });
  } catch (error) {
    // Another instance stored the same path meanwhile: this is its next version.
    const other = isUniqueViolation(error) ? await findFileByPath(conversationId, name) : null;
    const row = other && (await replace(other.id));
    if (row) return row;
    await removeBlobs([blob]);
    throw error;
  }
}

/** Remove blobs from whichever store holds them; a failure is logged (the rows are gone: nothing points at them). */
export async function removeBlobs(blobs: { blobId: string; storage: string }[]): Promise<void> {
  for (const kind of ["database", "s3"] as const) {
    const ids = blobs.filter((blob) => blob.storage === kind).map((blob) => blob.blobId);
    if (ids.length > 0)
      await storeOf(kind)
        .remove(ids)
        .catch((error) => console.error(`Could not remove ${ids.length} file blobs from the ${kind} store:`, error));
  }
}

/** This instance's copy of a deleted conversation's workspace goes too. */
export async function forgetWorkspace(conversationId: string): Promise<void> {
  manifests.delete(conversationId);
  lastUsed.delete(conversationId);
  await inTurn(conversationId, () => removeWorkspace(conversationId));
}

/** When each workspace here was last opened: a copy unused this long is dropped (the store keeps the files). */
const lastUsed = processWide("workspaceLastUsed", () => new Map<string, number>());
const IDLE_WORKSPACE_MS = 30 * 60_000;
let lastEviction = 0;

/**
 * Drop this instance's copies of the workspaces no call opened for IDLE_WORKSPACE_MS, so that the disk holds the
 * conversations in use, not every one this instance ever served (nor those deleted on another instance).
 */
function evictIdleWorkspaces(now = Date.now()): void {
  if (now - lastEviction < IDLE_WORKSPACE_MS / 10) return;
  lastEviction = now;
  for (const [conversationId, used] of lastUsed)
    if (now - used > IDLE_WORKSPACE_MS)
      void forgetWorkspace(conversationId).catch((error) =>
        console.error(`Could not drop the idle workspace of ${conversationId}:`, error),
      );
}
