import { randomUUID } from "node:crypto";
import {
  blobsOfConversations,
  deleteFileRows,
  insertFileCopies,
  listFiles,
  type FileRow,
} from "@/lib/db/queries/files";
import { storeOf, type StorageKind } from "./store";
import { forgetWorkspace, removeBlobs } from "./workspace-sync";

/** Delete one file: its row, then its bytes; each instance's workspace drops it at its next sync. */
export async function deleteFile(file: FileRow): Promise<void> {
  await removeBlobs(await deleteFileRows([file.id]));
}

/**
 * Delete conversations and their files' bytes: `deleteRows` deletes the rows (a conversation, an account); the
 * blobs are read before it and removed after, so that nothing left points at a removed blob.
 */
export async function deleteWithFiles(conversationIds: string[], deleteRows: () => Promise<void>): Promise<void> {
  const blobs = await blobsOfConversations(conversationIds);
  await deleteRows();
  await removeBlobs(blobs);
  await Promise.all(conversationIds.map(forgetWorkspace));
}

/**
 * A fork keeps the files: each gets a copy of its bytes in the fork (the two then change apart), attached to the
 * fork's copy of its message when that was copied. Answers each original file with its copy's id.
 */
export async function copyFiles(
  fromConversationId: string,
  toConversationId: string,
  ownerId: string,
  messageIds: Map<string, string>,
): Promise<{ original: FileRow; copyId: string }[]> {
  const files = await listFiles(fromConversationId);
  const copies = await Promise.all(
    files.map(async (file) => {
      const blobId = randomUUID();
      await storeOf(file.storage as StorageKind).copy(file.blobId, blobId);
      return {
        ...file,
        id: randomUUID(),
        conversationId: toConversationId,
        ownerId,
        blobId,
        messageId: file.messageId && (messageIds.get(file.messageId) ?? null),
      };
    }),
  );
  await insertFileCopies(copies);
  return files.map((original, index) => ({ original, copyId: copies[index].id }));
}
