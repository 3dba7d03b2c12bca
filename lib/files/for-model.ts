import type { FileRow } from "@/lib/db/queries/files";
import { humanSize } from "./display";
import { readBlob } from "./store";

/** What the model is given of the files a user message attached: a paragraph about them, and the images. */
export interface MessageAttachments {
  text: string;
  images: { data: Uint8Array; mediaType: string }[];
}

/** Images a model server takes inline; larger ones are only named (OpenAI's and Claude's limits are near 5–20 MB). */
const MODEL_IMAGE_BYTES = 5 * 1024 * 1024;
const VISION_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The attachments of each user message, by message id, for the history the model reads (lib/agent/history.ts). */
export async function attachmentsForModel(files: FileRow[]): Promise<Map<string, MessageAttachments>> {
  const byMessage = new Map<string, FileRow[]>();
  for (const file of files)
    if (file.messageId) byMessage.set(file.messageId, [...(byMessage.get(file.messageId) ?? []), file]);
  const attachments = new Map<string, MessageAttachments>();
  for (const [messageId, attached] of byMessage) {
    const images = await Promise.all(attached.filter(shownToModel).map(imageOf));
    attachments.set(messageId, { text: describe(attached), images });
  }
  return attachments;
}

const shownToModel = (file: FileRow) => VISION_TYPES.has(file.mimeType) && file.size <= MODEL_IMAGE_BYTES;

const imageOf = async (file: FileRow) => ({ data: await readBlob(file), mediaType: file.mimeType });

/** The paragraph: where the tools find the files, and what each is. */
function describe(files: FileRow[]): string {
  const [first] = files;
  const where =
    `They are in this conversation's workspace: read_file("/${first.path}") or list_dir("/"); Python tools open ` +
    `/mnt/data/${first.path}; JavaScript tools use files.read("/${first.path}"); run_command sees /work/${first.path}.`;
  const lines = files.map((file) => {
    const head = `- /${file.path} (${file.mimeType}, ${humanSize(file.size)})`;
    if (VISION_TYPES.has(file.mimeType))
      return shownToModel(file)
        ? `${head}: the image is attached to this message.`
        : `${head}: an image too large to attach here; tools can read it.`;
    return file.preview ? `${head}. ${previewLabel(file.mimeType)}\n${file.preview}` : `${head}.`;
  });
  const count = files.length === 1 ? "1 file" : `${files.length} files`;
  return `[The person attached ${count}. ${where}]\n${lines.join("\n")}`;
}

/** A table's preview says what it shows (lib/files/preview.ts); a text's and a PDF's are introduced here. */
const previewLabel = (mimeType: string) =>
  mimeType === "application/pdf"
    ? "Its first page's text:"
    : /csv|tab-separated/.test(mimeType)
      ? ""
      : "Its first lines:";
