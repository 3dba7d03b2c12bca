import { Readable } from "node:stream";
import type { FileRow } from "@/lib/db/queries/files";
import { shownInline } from "./sniff";
import { storeOf, type StorageKind } from "./store";

/**
 * A file's bytes as a download, streamed from the store. Only images, PDF and plain text are shown in the browser;
 * everything else (HTML, SVG, scripts …) is an attachment, and nothing is sniffed or allowed to run either way.
 */
export function fileResponse(file: FileRow, request: Request): Response {
  const etag = `"${file.sha256}"`;
  const forced = new URL(request.url).searchParams.get("download") === "1";
  const inline = shownInline(file.mimeType) && !forced;
  const headers = new Headers({
    "content-type": file.mimeType.startsWith("text/") ? `${file.mimeType}; charset=utf-8` : file.mimeType,
    "content-disposition": `${inline ? "inline" : "attachment"}; ${dispositionName(file.name)}`,
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'",
    "cache-control": "private, no-cache",
    etag,
  });
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  headers.set("content-length", String(file.size));
  const bytes = storeOf(file.storage as StorageKind).get(file.blobId);
  return new Response(Readable.toWeb(Readable.from(bytes)) as ReadableStream<Uint8Array>, { headers });
}

/** The name in both forms: ASCII for old clients, RFC 5987's UTF-8 for the rest. */
function dispositionName(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  // RFC 8187's attr-char: encodeURIComponent leaves ' ( ) * ! as they are, and ' separates the parts of filename*.
  const encoded = encodeURIComponent(name).replace(
    /['()*!]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
