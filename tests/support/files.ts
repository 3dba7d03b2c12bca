import type { ConversationFile } from "@/lib/contract/responses";
import { expectJson, sendJson, type Api } from "./api";

/** Conversation files as the tests send and read them (lib/files/, the files' routes). */

/** A part of an upload: its name, its bytes, and the type the client claims (the server sniffs its own). */
export type UploadPart = [name: string, bytes: BlobPart, type?: string];

export const SALES = "region,amount\nnorth,10\nsouth,32\neast,7\n";
/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** POST the parts as one multipart upload, each a part named `file`. */
export function upload(client: Api, conversationId: string, parts: UploadPart[]): Promise<Response> {
  const form = new FormData();
  for (const [name, bytes, type] of parts) form.append("file", new Blob([bytes], { type: type ?? "" }), name);
  return client.fetch(`/api/conversations/${conversationId}/files`, { method: "POST", body: form });
}

/** An upload that must be stored: its files as the 201 gives them. */
export const uploaded = async (client: Api, conversationId: string, parts: UploadPart[]) =>
  ((await expectJson(await upload(client, conversationId, parts), 201)) as { files: ConversationFile[] }).files;

export const listed = async (client: Api, conversationId: string) =>
  (
    (await expectJson(await client.fetch(`/api/conversations/${conversationId}/files`), 200)) as {
      files: ConversationFile[];
    }
  ).files;

/** Send a message that attaches files (its stream is the response's body). */
export const sendWithFiles = (client: Api, conversationId: string, content: string, files: string[]) =>
  sendJson(client, `/api/conversations/${conversationId}/messages`, "POST", { content, files });
