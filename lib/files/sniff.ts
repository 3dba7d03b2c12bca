import { fileTypeFromBuffer } from "file-type";
import { plainFileName } from "./names";

/**
 * How many leading bytes sniffMimeType and textPreview read (fewer when the file is shorter). file-type needs 4,100
 * for its signatures; the text check and the previews get more of the file to judge from.
 */
export const SNIFF_BYTES = 8192;

const OCTET_STREAM = "application/octet-stream";
const TEXT_PLAIN = "text/plain";

// Formats with a signature that may be all text: a text head with any other signature (a CSV that begins "BM" or
// "ID3") is text, since a real BMP or MP3 has bytes no UTF-8 text has within its first few.
const TEXTUAL_SIGNATURES = new Set([
  "application/pdf",
  "application/postscript",
  "application/eps",
  "application/rtf",
  "application/pgp-encrypted",
  "text/calendar",
  "text/vcard",
  "text/vtt",
]);

const TEXT_TYPES_BY_EXTENSION: Record<string, string> = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  md: "text/markdown",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  svg: "image/svg+xml",
  xml: "application/xml",
  js: "text/javascript",
  mjs: "text/javascript",
  py: "text/x-python",
};

// The tags with which, first in a file, the WHATWG sniffing algorithm reads it as HTML.
const HTML_ELEMENTS = new Set([
  "html",
  "head",
  "script",
  "iframe",
  "h1",
  "div",
  "font",
  "table",
  "a",
  "style",
  "title",
  "b",
  "body",
  "br",
  "p",
]);

// Types a browser may show in the page: they run no script. SVG, HTML and XML can; the rest is for downloading.
const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", TEXT_PLAIN]);

/**
 * The file's type from its first SNIFF_BYTES bytes, never from what the client said: a binary signature, else for
 * text the markup it begins with (HTML, SVG, XML), else the extension of `name` among a few text types, else
 * text/plain; bytes that are neither text nor a known format are application/octet-stream.
 */
export async function sniffMimeType(head: Uint8Array, name: string): Promise<string> {
  const sample = head.subarray(0, SNIFF_BYTES);
  const signature = await signatureType(sample);
  const text = decodeText(sample);
  if (text === undefined) return signature ?? OCTET_STREAM;
  if (signature && TEXTUAL_SIGNATURES.has(signature)) return signature;
  return markupType(text) ?? TEXT_TYPES_BY_EXTENSION[extensionOf(name)] ?? TEXT_PLAIN;
}

/** Whether the file may be served inline (Content-Disposition: inline); every other type is an attachment. */
export function shownInline(mimeType: string): boolean {
  return INLINE_TYPES.has(mimeType);
}

async function signatureType(sample: Uint8Array): Promise<string | undefined> {
  try {
    return (await fileTypeFromBuffer(sample))?.mime;
  } catch {
    // A detector that trips over hostile bytes leaves the file unrecognised, not the upload failed.
    return undefined;
  }
}

/** The sample as text when it is UTF-8 without NUL; a sequence cut off by the sample's end is allowed. */
function decodeText(sample: Uint8Array): string | undefined {
  if (sample.includes(0)) return undefined;
  try {
    // `stream: true` holds back an unfinished sequence at the end instead of calling it an error.
    return new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
  } catch {
    return undefined;
  }
}

/**
 * HTML, SVG or XML by what the text begins with, past whitespace, comments, XML declarations, processing
 * instructions and a doctype: the first element decides, as a browser would.
 */
function markupType(text: string): string | undefined {
  let rest = text;
  let sawXmlProlog = false;
  let sawComment = false;
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith("<!--")) {
      sawComment = true;
      const end = rest.indexOf("-->", 4);
      // A comment longer than the sample: WHATWG calls text that opens with one HTML.
      if (end < 0) return sawXmlProlog ? "application/xml" : "text/html";
      rest = rest.slice(end + 3);
    } else if (rest.startsWith("<?") && (sawXmlProlog || /^<\?xml\s/i.test(rest))) {
      // The declaration, then processing instructions; `<?php` is no XML.
      sawXmlProlog = true;
      const end = rest.indexOf("?>", 2);
      if (end < 0) return "application/xml";
      rest = rest.slice(end + 2);
    } else if (/^<!doctype/i.test(rest)) {
      if (/^<!doctype\s*html[\s>]/i.test(rest)) return "text/html";
      sawXmlProlog = true;
      // An internal subset ([...]) may hold `>`: the doctype ends after its `]`.
      const subsetEnd = /^[^>]*\[/.test(rest) ? rest.search(/\]\s*>/) : 0;
      const end = subsetEnd < 0 ? -1 : rest.indexOf(">", subsetEnd);
      if (end < 0) return "application/xml";
      rest = rest.slice(end + 1);
    } else {
      break;
    }
  }
  // `svg:svg` is SVG too: the prefix is whatever the document bound to the SVG namespace.
  const element = /^<(?:[a-z][\w.-]*:)?([a-z][\w.-]*)(?=[\s/>]|$)/i.exec(rest)?.[1]?.toLowerCase();
  if (element === "svg") return "image/svg+xml";
  if (element && HTML_ELEMENTS.has(element)) return "text/html";
  if (sawXmlProlog) return "application/xml";
  return sawComment ? "text/html" : undefined;
}

function extensionOf(name: string): string {
  const stored = plainFileName(name);
  const dot = stored.lastIndexOf(".");
  return dot > 0 ? stored.slice(dot + 1).toLowerCase() : "";
}
