import { Readable } from "node:stream";
import busboy from "busboy";
import { isUniqueViolation } from "@/lib/db/driver/sql";
import { deleteFileRows, insertFile, takenPaths, type FileRow } from "@/lib/db/queries/files";
import { ApiError, badRequest, tooLarge } from "@/lib/platform/errors";
import { processWide } from "@/lib/platform/process-wide";
import { Turns } from "@/lib/platform/turns";
import { config } from "@/lib/settings/config";
import { roomFor } from "./limits";
import { plainFileName, uniqueFileName } from "./names";
import { SNIFF_BYTES, sniffMimeType } from "./sniff";
import { pdfFirstPageText, textPreview } from "./preview";
import { FileTooLargeError, storeOf, writeBlob, type WrittenBlob } from "./store";
import { removeBlobs } from "./workspace-sync";

const MULTIPART = 'Send the files as multipart/form-data, each in a part named "file".';
const CUT_OFF = `The upload ended inside a file: its body was cut off or is malformed. ${MULTIPART}`;
const MORE_FILES = config.files.maxPerMessage + 1;
/** What a refused upload's client may still send, read and dropped, before its connection is closed instead. */
const DISCARDED_BYTES = 64 * 1024 * 1024;

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
      // One more than allowed: busboy's limit events fire on reaching a limit, so an upload of exactly the most is
      // told apart from one with more.
      limits: { files: MORE_FILES, fields: 0, parts: MORE_FILES, fieldSize: 1024 },
      defParamCharset: "utf8",
    });
  } catch {
    throw badRequest(MULTIPART);
  }
  const stored: FileRow[] = [];
  try {
    for await (const part of parts(Readable.fromWeb(request.body as never), parser)) {
      countUpload();
      // One upload of an identity at a time here: each part's room is counted with the parts before it stored.
      stored.push(await uploads.run(ownerId, () => storeUpload(part, conversationId, ownerId)));
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
  let current: Readable | undefined;
  let count = 0;
  parser.on("file", (field, stream, info) => {
    if (field !== "file") {
      stream.resume();
      return push(badRequest(`The upload has a part named "${field.slice(0, 40)}". ${MULTIPART}`));
    }
    if (++count > config.files.maxPerMessage) return push(tooManyFiles());
    current = stream;
    push({ name: info.filename ?? "", stream });
  });
  parser.on("field", (field) => push(badRequest(`The upload has a field "${field.slice(0, 40)}". ${MULTIPART}`)));
  parser.on("filesLimit", () => push(tooManyFiles()));
  parser.on("partsLimit", () => push(tooManyFiles()));
  parser.on("fieldsLimit", () => push(badRequest(MULTIPART)));
  parser.on("error", () => push(badRequest(`The multipart body is malformed. ${MULTIPART}`)));
  parser.on("close", () => push(null));
  // A connection lost mid-part ends the part too, or its store would wait for bytes that never come.
  body.on("error", () => {
    const cut = badRequest(CUT_OFF);
    current?.destroy(cut);
    push(cut);
  });
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
    await discardRest(body);
  }
}

/**
 * Read what the client still sends after a refusal, so that it gets the answer rather than a reset connection; past
 * DISCARDED_BYTES, the connection goes instead.
 */
function discardRest(body: Readable): Promise<void> {
  if (body.readableEnded || body.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    body.on("data", (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > DISCARDED_BYTES) {
        body.destroy();
        resolve();
      }
    });
    body
      .once("end", resolve)
      .once("error", () => resolve())
      .once("close", resolve);
    body.resume();
  });
}

const tooManyFiles = () =>
  tooLarge(`An upload holds at most ${config.files.maxPerMessage} files (TOOLSMITH_MESSAGE_MAX_FILES).`);

/** Each identity's uploads on this instance, one after another. */
const uploads = processWide("uploadTurns", () => new Turns());

/** One part into the store and the conversation's files, under the tightest limit it counts against. */
async function storeUpload(part: Part, conversationId: string, ownerId: string): Promise<FileRow> {
  const name = plainFileName(part.name);
  const rooms = await roomFor(conversationId, ownerId);
  const room = Math.max(0, rooms[0].bytes);
  let head = Buffer.alloc(0);
  async function* withHead() {
    const chunks = (part.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    for (;;) {
      // A failure of the part's own stream is the body's (cut off, malformed), not the store's.
      const next = await chunks.next().catch((error: unknown) => {
        throw error instanceof ApiError ? error : badRequest(CUT_OFF);
      });
      if (next.done) return;
      const chunk = next.value;
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
