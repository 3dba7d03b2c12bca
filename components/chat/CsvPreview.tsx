"use client";

import { Download, FileSpreadsheet, Loader2, X } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { api, problemText, type ConversationFile } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { DataTable } from "@/components/ui/DataTable";
import { humanSize } from "./files";

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
 * The first rows of a CSV file as a table, in a native modal <dialog> (as ShareDialog): the browser keeps focus inside
 * it, closes it on Escape, and gives focus back to the chip that opened it.
 */
export function CsvPreview({
  file,
  onClose,
}: {
  file: Pick<ConversationFile, "name" | "size" | "url">;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [head, setHead] = useState<CsvHead | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    dialog.current?.showModal();
    const controller = new AbortController();
    readCsvHead(file.url, controller.signal).then(setHead, (error) => {
      if (!controller.signal.aborted) setProblem(problemText(error));
    });
    return () => controller.abort();
  }, [file.url]);

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      onClose={onClose}
      // A click on the backdrop lands on the dialog element itself.
      onClick={(event) => event.target === dialog.current && dialog.current.close()}
      className="m-auto w-[calc(100%-2rem)] max-w-3xl rounded-2xl border border-zinc-200 bg-white p-5 text-zinc-900 shadow-2xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      data-testid="csv-preview"
    >
      <div className="flex items-center gap-2">
        <FileSpreadsheet className="size-5 shrink-0 text-emerald-600" aria-hidden />
        <h2 id={titleId} className="min-w-0 truncate text-base font-semibold">
          {file.name}
        </h2>
        <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">{humanSize(file.size)}</span>
        <Button
          variant="quiet"
          size="icon"
          onClick={() => dialog.current?.close()}
          aria-label="Close"
          className="ml-auto"
        >
          <X className="size-4" aria-hidden />
        </Button>
      </div>
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
    </dialog>
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
