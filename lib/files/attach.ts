import { unattachedFiles } from "@/lib/db/queries/files";
import { badRequest, tooLarge } from "@/lib/platform/errors";
import { config } from "@/lib/settings/config";

/**
 * The ids a new message may attach: its conversation's uploads that no message has attached yet, at most
 * TOOLSMITH_MESSAGE_MAX_FILES; anything else is a 400 (or 413) naming the id.
 */
export async function filesToAttach(conversationId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length > config.files.maxPerMessage)
    throw tooLarge(`A message attaches at most ${config.files.maxPerMessage} files; this one names ${unique.length}.`);
  if (unique.length === 0) return [];
  const found = new Set((await unattachedFiles(conversationId, unique)).map((file) => file.id));
  const missing = unique.find((id) => !found.has(id));
  if (missing)
    throw badRequest(
      `files: "${missing.slice(0, 64)}" is not a file of this conversation that a message can attach (upload it with POST /api/conversations/{id}/files; each upload is attached once, and stays in the workspace after).`,
    );
  return unique;
}
