import type { ConversationFile } from "@/lib/contract/responses";
import type { WrittenFile } from "@/lib/contract/events";
import type { FileRow } from "@/lib/db/queries/files";

/** Where a reader gets a file's bytes: the owner's route, or a share link's. */
export type FileUrl = (fileId: string) => string;

export const ownerFileUrl: FileUrl = (fileId) => `/api/files/${encodeURIComponent(fileId)}`;
export const sharedFileUrl =
  (token: string): FileUrl =>
  (fileId) =>
    `/api/share/${encodeURIComponent(token)}/files/${encodeURIComponent(fileId)}`;

/** A file as the API and the pages show it. */
export function fileView(row: FileRow, urlOf: FileUrl): ConversationFile {
  return {
    id: row.id,
    name: row.name,
    path: `/${row.path}`,
    size: row.size,
    mimeType: row.mimeType,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    source: row.source === "tool" ? "tool" : "upload",
    url: urlOf(row.id),
    messageId: row.messageId,
    ...(row.source === "tool" && {
      writtenBy: { runId: row.runId, callId: row.callId, tool: row.toolName ?? "" },
    }),
  };
}

/** A file a call wrote, as its tool_result names it. */
export const writtenFile = (row: FileRow): WrittenFile => ({
  id: row.id,
  name: row.name,
  path: `/${row.path}`,
  size: row.size,
  mimeType: row.mimeType,
});
