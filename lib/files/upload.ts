import { Readable } from "node:stream";
import busboy from "busboy";
import { isUniqueViolation } from "@/lib/db/driver/sql";
import { deleteFileRows, insertFile, takenPaths, type FileRow } from "@/lib/db/queries/files";
import { badRequest, tooLarge } from "@/lib/platform/errors";
import { config } from "@/lib/settings/config";
import { roomFor } from "./limits";
import { plainFileName, uniqueFileName } from "./names";
import { SNIFF_BYTES, sniffMimeType } from "./sniff";
import { pdfFirstPageText, textPreview } from "./preview";
import { FileTooLargeError, storeOf, writeBlob, type WrittenBlob } from "./store";
import { removeBlobs } from "./workspace-sync";

const MULTIPART = 'Send the files as multipart/form-data, each in a part named "file".';

/** One part of the upload, as busboy hands it over: the next is not read until this one is stored. */
interface Part {
  name: string;
  stream: Readable;
}

/**
 * Store the files of a multipart upload into the conversation, each streamed into the store as it arrives (never
 * whole in memory), its type sniffed from its first bytes and its name made plain and unique. All or nothing: a
 * part past a limit or a broken body removes what the request stored, and is a 413 or a 400 that says why.
 */
export async function receiveUploads(
  request: Request,
  conversationId: string,
  ownerId: string,
  countUpload: () => void,
): Promise<FileRow[]> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type) || !request.body) throw badRequest(MULTIPART);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": type },
      limits: { files: config.files.maxPerMessage, fields: 0, parts: config.files.maxPerMessage, fieldSize: 1024 },
      defParamCharset: "utf8",
    });
  } catch {
    throw badRequest(MULTIPART);
  }
  const stored: FileRow[] = [];
  try {
    for await (const part of parts(Readable.fromWeb(request.body as never), parser)) {
      countUpload();
      stored.push(await storeUpload(part, conversationId, ownerId));
    }
    if (stored.length === 0) throw badRequest(`The upload holds no file. ${MULTIPART}`);
    return stored;
  } catch (error) {
    await removeBlobs(await deleteFileRows(stored.map((file) => file.id)));
    throw error;
  }
}

/** The file parts of the body, one at a time; anything else in it is a 400. */
async function* parts(body: Readable, parser: busboy.Busboy): AsyncGenerator<Part> {
  const queue: (Part | Error | null)[] = [];
  let wake = () => {};
  const push = (item: Part | Error | null) => {
    queue.push(item);
    wake();
  };
  parser.on("file", (field, stream, info) => {
    if (field !== "file") {
      stream.resume();
      return push(badRequest(`The upload has a part named "${field.slice(0, 40)}". ${MULTIPART}`));
    }
    push({ name: info.filename ?? "", stream });
  });
  parser.on("field", (field) => push(badRequest(`The upload has a field "${field.slice(0, 40)}". ${MULTIPART}`)));
  parser.on("filesLimit", () =>
    push(tooLarge(`An upload holds at most ${config.files.maxPerMessage} files (TOOLSMITH_MESSAGE_MAX_FILES).`)),
  );
  parser.on("partsLimit", () => push(tooLarge(`An upload holds at most ${config.files.maxPerMessage} files.`)));
  parser.on("fieldsLimit", () => push(badRequest(MULTIPART)));
  parser.on("error", () => push(badRequest(`The multipart body is malformed. ${MULTIPART}`)));
  parser.on("close", () => push(null));
  body.on("error", () => push(badRequest("The upload was cut off before it ended.")));
  body.pipe(parser);
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift()!;
      if (item === null) return;
      if (item instanceof Error) throw item;
      yield item;
    }
  } finally {
    body.unpipe(parser);
    body.destroy();
  }
}

/** One part into the store and the conversation's files, under the tightest limit it counts against. */
async function storeUpload(part: Part, conversationId: string, ownerId: string): Promise<FileRow> {
  const name = plainFileName(part.name);
  const rooms = await roomFor(conversationId, ownerId);
  const room = Math.max(0, rooms[0].bytes);
  let head = Buffer.alloc(0);
  async function* withHead() {
    for await (const chunk of part.stream as AsyncIterable<Buffer>) {
      if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
      yield chunk;
    }
  }
  let blob: WrittenBlob;
  try {
    blob = await writeBlob(withHead(), room, () => rooms[0].refusal(name));
  } catch (error) {
    part.stream.resume();
    if (error instanceof FileTooLargeError) throw tooLarge(error.message);
    throw error;
  }
  const mimeType = await sniffMimeType(head, name);
  const preview =
    mimeType === "application/pdf"
      ? await pdfFirstPageText(() => storeOf(blob.storage).get(blob.blobId))
      : textPreview(mimeType, head);
  for (let attempt = 0; ; attempt++) {
    const unique = uniqueFileName(name, new Set(await takenPaths(conversationId)));
    try {
      return await insertFile({
        conversationId,
        ownerId,
        path: unique,
        name: unique,
        mimeType,
        source: "upload",
        preview: preview ?? null,
        ...blob,
      });
    } catch (error) {
      // Another upload took the name meanwhile: the next free one.
      if (!isUniqueViolation(error) || attempt >= 5) {
        await removeBlobs([blob]);
        throw error;
      }
    }
  }
}
