"use client";

import { Download, FileSpreadsheet, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { api, problemText, type ConversationFile } from "@/lib/api/client";
import { ModalDialog } from "@/components/ui/ModalDialog";
import { DataTable } from "@/components/ui/DataTable";
import { humanSize } from "@/lib/files/display";

/** How much of the file the preview reads: enough for its first rows, never a large file whole. */
const PREVIEW_BYTES = 64 * 1024;
const PREVIEW_ROWS = 100;

interface CsvHead {
  columns: string[];
  rows: (string | number)[][];
  /** Every row of the file is shown. */
  whole: boolean;
}

/**
 * The first rows of a CSV file as a table, in a modal dialog (focus comes back to the chip that opened it).
 */
export function CsvPreview({
  file,
  onClose,
}: {
  file: Pick<ConversationFile, "name" | "size" | "url">;
  onClose: () => void;
}) {
  const [head, setHead] = useState<CsvHead | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    readCsvHead(file.url, controller.signal).then(setHead, (error) => {
      if (!controller.signal.aborted) setProblem(problemText(error));
    });
    return () => controller.abort();
  }, [file.url]);

  return (
    <ModalDialog
      icon={<FileSpreadsheet className="size-5 shrink-0 text-emerald-600" aria-hidden />}
      title={file.name}
      beside={<span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">{humanSize(file.size)}</span>}
      width="wide"
      onClose={onClose}
      testId="csv-preview"
    >
      <div className="mt-4">
        {problem ? (
          <p role="alert" className="text-sm text-rose-800 dark:text-rose-200">
            {problem}
          </p>
        ) : head ? (
          <DataTable
            columns={head.columns}
            rows={head.rows}
            label={`The first rows of ${file.name}`}
            note={rowsNote(head)}
          />
        ) : (
          <Loader2 className="mx-auto size-5 animate-spin text-zinc-500" aria-label="Loading" />
        )}
      </div>
      <div className="mt-4 flex justify-end">
        <a
          href={`${file.url}${file.url.includes("?") ? "&" : "?"}download=1`}
          className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          <Download className="size-4" aria-hidden /> Download
        </a>
      </div>
    </ModalDialog>
  );
}

const rowsNote = ({ rows, whole }: CsvHead) =>
  rows.length === 0
    ? "The file holds a header row only."
    : whole
      ? `All ${rows.length} row${rows.length === 1 ? "" : "s"}.`
      : `The first ${rows.length} row${rows.length === 1 ? "" : "s"}.`;

/** The header and first rows of the CSV file at `url`, from its first PREVIEW_BYTES only. */
async function readCsvHead(url: string, signal: AbortSignal): Promise<CsvHead> {
  const [{ text, complete }, { parse }] = await Promise.all([
    api.readFileStart(url, PREVIEW_BYTES, signal),
    // Loaded with the first preview, not with the chat.
    import("csv-parse/browser/esm/sync"),
  ]);
  // A file read in part may end in a row cut in two: the text stops at its last whole line.
  const lines = complete ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  const records: string[][] = [];
  try {
    parse(lines, {
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // One row past those shown tells whether there are more.
      to: PREVIEW_ROWS + 2,
      on_record: (record: string[]) => (records.push(record), record),
    });
  } catch (error) {
    // A quoted value (lines and all) cut at the end: the rows before it are whole.
    if (complete || records.length === 0) throw new Error(`It could not be read as CSV: ${problemText(error)}`);
  }
  if (records.length === 0) throw new Error("The file is empty.");
  const [header, ...rows] = records;
  const width = Math.max(...records.map((record) => record.length));
  const columns = Array.from({ length: width }, (_, index) => header[index] || `column ${index + 1}`);
  return {
    columns,
    rows: rows.slice(0, PREVIEW_ROWS).map((row) => row.map(numberOrText)),
    whole: complete && rows.length <= PREVIEW_ROWS,
  };
}

/** A cell that is a number written as JavaScript writes it, as that number (so the table lines it up); "007" stays text. */
const numberOrText = (cell: string) => (cell !== "" && String(Number(cell)) === cell ? Number(cell) : cell);
