import path from "node:path";
import { Worker } from "node:worker_threads";
import { CsvError, parse } from "csv-parse/sync";
import { SNIFF_BYTES } from "./sniff";

/** About how long a preview may be, in characters: enough to show the model a file's shape, not its content. */
export const PREVIEW_CHARS = 1500;

const TABLE_ROWS = 5;
const TABLE_CELL_CHARS = 60;
// The header line's share of the budget: wider tables show their first columns, so that rows fit beside it.
const TABLE_HEADER_CHARS = Math.floor(PREVIEW_CHARS / 3);
const TEXT_LINES = 20;

const PDF_TIMEOUT_MS = 3000;
// Loading pdf.js into a new thread is our own code, not the PDF's: a loaded machine may take seconds, so it has its own bound.
const PDF_LOAD_TIMEOUT_MS = 30_000;
// pdf.js's heap for the first page of a large PDF; the file's bytes and decoded streams are outside it.
const PDF_HEAP_MB = 256;

const TABLE_DELIMITERS: Record<string, { label: string; delimiter: string }> = {
  "text/csv": { label: "CSV", delimiter: "," },
  "text/tab-separated-values": { label: "TSV", delimiter: "\t" },
};

/**
 * What the model is told a text file holds, from its first SNIFF_BYTES bytes (`head`, the whole file when shorter):
 * for CSV and TSV the column count, the header and the first rows as a Markdown table, which models read reliably;
 * for other text its first lines. At most about PREVIEW_CHARS characters; undefined for binary types and empty files.
 */
export function textPreview(mimeType: string, head: Uint8Array): string | undefined {
  if (!isTextType(mimeType)) return undefined;
  // `stream: true` leaves out a character cut in two by the end of the head.
  const text = new TextDecoder().decode(head, { stream: true });
  const headIsCut = head.length >= SNIFF_BYTES;
  const table = TABLE_DELIMITERS[mimeType];
  return (table && tablePreview(text, headIsCut, table.label, table.delimiter)) ?? linesPreview(text, headIsCut);
}

function isTextType(mimeType: string): boolean {
  return (
    mimeType.startsWith("text/") ||
    ["application/json", "application/xml", "application/javascript"].includes(mimeType) ||
    /\+(xml|json)$/.test(mimeType)
  );
}

function linesPreview(text: string, headIsCut: boolean): string | undefined {
  const lines = text.split(/\r?\n/);
  const shown = lines.slice(0, TEXT_LINES).join("\n");
  // The head's last line goes on in the file when the head was cut and every line of it is shown.
  const lastLineIsCut = headIsCut && lines.length <= TEXT_LINES;
  const preview = shown.length > PREVIEW_CHARS || lastLineIsCut ? `${cut(shown, PREVIEW_CHARS - 1)}…` : shown;
  return preview.trim() === "" ? undefined : preview;
}

/** The table as Markdown, or undefined when the head holds no record to show (the caller falls back to lines). */
function tablePreview(text: string, headIsCut: boolean, label: string, delimiter: string): string | undefined {
  // A cut head ends in the middle of a record: only whole lines are parsed.
  const records = parseRecords(headIsCut ? text.slice(0, text.lastIndexOf("\n") + 1) : text, delimiter);
  if (!records?.length) return undefined;
  const [header, ...rows] = records.map((record) => record.map(tableCell));
  const columnCount = header.length;
  let shownColumns = Math.max(columnCount, ...rows.map((row) => row.length));
  while (shownColumns > 1 && tableLine(header, shownColumns).length > TABLE_HEADER_CHARS) shownColumns--;

  const columnsNote = shownColumns < columnCount ? `, its first ${shownColumns} columns` : "";
  const render = (tableLines: string[]) => {
    const rowCount = tableLines.length - 2;
    const shown = rowCount === 0 ? "its header" : `its header and first ${plural(rowCount, "row")}`;
    return `${label}, ${plural(columnCount, "column")}; ${shown}${columnsNote}:\n${tableLines.join("\n")}`;
  };
  const tableLines = [tableLine(header, shownColumns), tableLine([], shownColumns, "---")];
  for (const row of rows) {
    const line = tableLine(row, shownColumns);
    if (render([...tableLines, line]).length > PREVIEW_CHARS) break;
    tableLines.push(line);
  }
  return render(tableLines);
}

/** The header and the first TABLE_ROWS records, past blank ones, tolerating ragged rows and stray quotes. */
function parseRecords(text: string, delimiter: string): string[][] | undefined {
  const options = {
    delimiter,
    bom: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
  };
  try {
    return parse(text, { ...options, to: TABLE_ROWS + 1 });
  } catch (error) {
    // A quoted field that spans past the head's end: the records before it are whole.
    if (error instanceof CsvError && error.code === "CSV_QUOTE_NOT_CLOSED" && Number(error.records) > 0) {
      return parse(text, { ...options, to: Number(error.records) });
    }
    return undefined;
  }
}

function tableCell(value: string): string {
  const oneLine = value.replace(/\s+/g, " ").trim();
  const shortened = [...oneLine].length > TABLE_CELL_CHARS ? `${cut(oneLine, TABLE_CELL_CHARS - 1)}…` : oneLine;
  return shortened.replaceAll("|", "\\|");
}

function tableLine(cells: readonly string[], width: number, filler = ""): string {
  const padded = Array.from({ length: width }, (_, index) => cells[index] ?? filler);
  return `| ${padded.join(" | ")} |`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The first `maxChars` code points of `text`, never half a surrogate pair. */
function cut(text: string, maxChars: number): string {
  return [...text].slice(0, maxChars).join("");
}

export interface PdfTextOptions {
  /** Stops reading and parsing: the answer is then undefined. */
  signal?: AbortSignal;
  /** The longest text returned; PREVIEW_CHARS by default. */
  maxChars?: number;
  /** How long pdf.js may take on the PDF, once it is loaded in its thread; 3 s by default. */
  timeoutMs?: number;
}

/**
 * The text of a PDF's first page, whitespace-normalised and cut at `maxChars`, through pdf.js (no eval, no fonts, no
 * network). Undefined when the page has no text, the PDF does not parse, pdf.js overruns its time or heap, or the
 * signal aborts: a hostile PDF never throws out of here nor hangs, since pdf.js runs on a thread of its own that
 * is terminated. Only a failure of `bytes` itself (the store's read) rejects. The whole file is held in memory once:
 * a 25 MB PDF costs some 70-90 MB for the half second it takes; a decompression bomb up to ~150 MB a second until
 * its time is up. pdf.js is loaded from node_modules at run time, not bundled: Next needs no setting for it.
 */
export async function pdfFirstPageText(
  bytes: Uint8Array | (() => AsyncIterable<Uint8Array>),
  { signal, maxChars = PREVIEW_CHARS, timeoutMs = PDF_TIMEOUT_MS }: PdfTextOptions = {},
): Promise<string | undefined> {
  const data = typeof bytes === "function" ? await readAll(bytes(), signal) : bytes;
  if (!data || signal?.aborted) return undefined;
  // Whitespace shrinks when normalised: the thread sends back a few times maxChars, not a whole page of a hostile PDF.
  const rawText = await parseInThread(data, maxChars * 4 + 256, timeoutMs, signal, typeof bytes === "function");
  if (rawText === undefined) return undefined;
  const text = normaliseWhitespace(rawText);
  if (text === "") return undefined;
  return [...text].length > maxChars ? `${cut(text, maxChars - 1)}…` : text;
}

async function readAll(chunks: AsyncIterable<Uint8Array>, signal?: AbortSignal): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    if (signal?.aborted) return undefined;
    parts.push(chunk);
    length += chunk.length;
  }
  const data = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    data.set(part, offset);
    offset += part.length;
  }
  return data;
}

function normaliseWhitespace(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, "")
    .split(/\s*\n\s*/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

// Loaded by Node as is, not bundled by Next (like the sandbox's and the librarian's workers).
const PDFJS_DIRECTORY = path.join(process.cwd(), "node_modules", "pdfjs-dist");

// The thread's script (CommonJS, as Node runs `eval` workers). pdf.worker.mjs sets globalThis.pdfjsWorker, which
// pdf.js then runs on this same thread instead of starting a worker of its own.
const PDF_THREAD_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { pathToFileURL } = require("node:url");
const { bytes, pdfjsDirectory, maxRawChars } = workerData;
async function firstPageText() {
  await import(pathToFileURL(pdfjsDirectory + "/legacy/build/pdf.worker.mjs").href);
  const pdfjs = await import(pathToFileURL(pdfjsDirectory + "/legacy/build/pdf.mjs").href);
  parentPort.postMessage({ loaded: true });
  const document = await pdfjs.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWasm: false,
    enableXfa: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    cMapUrl: pdfjsDirectory + "/cmaps/",
    standardFontDataUrl: pdfjsDirectory + "/standard_fonts/",
  }).promise;
  const content = await (await document.getPage(1)).getTextContent();
  let text = "";
  for (const item of content.items) {
    if (typeof item.str !== "string") continue;
    text += item.str + (item.hasEOL ? "\\n" : "");
    if (text.length >= maxRawChars) break;
  }
  return text.slice(0, maxRawChars);
}
firstPageText().then(
  (text) => parentPort.postMessage({ text }),
  () => parentPort.postMessage({ text: null }),
);
`;

function parseInThread(
  data: Uint8Array,
  maxRawChars: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  transferData: boolean,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(PDF_THREAD_SOURCE, {
      eval: true,
      workerData: { bytes: data, pdfjsDirectory: PDFJS_DIRECTORY, maxRawChars },
      // The bytes read here move to the thread instead of being copied; a caller's own array is copied.
      transferList: transferData ? [data.buffer as ArrayBuffer] : [],
      resourceLimits: { maxOldGenerationSizeMb: PDF_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    });
    let settled = false;
    const finish = (text: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", giveUp);
      void worker.terminate();
      resolve(text);
    };
    const giveUp = () => finish(undefined);
    let timer = setTimeout(giveUp, PDF_LOAD_TIMEOUT_MS);
    signal?.addEventListener("abort", giveUp, { once: true });
    worker.on("message", (message: { loaded: true } | { text: string | null }) => {
      if ("text" in message) return finish(message.text ?? undefined);
      clearTimeout(timer);
      timer = setTimeout(giveUp, timeoutMs);
    });
    // Out of heap, or a crash of pdf.js: no text, as for a PDF that does not parse.
    worker.on("error", giveUp);
    worker.on("exit", giveUp);
  });
}
