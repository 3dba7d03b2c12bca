import { cellText } from "@/lib/trace/table";

/** Cells longer than this wrap, at a width of their own: a wide table would otherwise squeeze them a word a line. */
const WRAP_CHARS = 40;

/** Any rows as a <table>: `columns` head it, cells show as text (null as —, nested values as JSON), numeric columns
 * right-aligned; `label` names its scrolling region (and is the caption unless `caption` is given), `note` follows it. */
export function DataTable({
  columns,
  rows,
  label,
  caption,
  note,
}: {
  columns: readonly string[];
  rows: readonly (readonly unknown[])[];
  label: string;
  caption?: string;
  note?: string;
}) {
  const numeric = columns.map((_, column) => isNumericColumn(rows, column));
  const align = (column: number) => (numeric[column] ? "text-right tabular-nums" : "text-left");
  return (
    <div className="min-w-0">
      {/* Focusable, so a keyboard can scroll a table wider or longer than the card. */}
      <div
        tabIndex={0}
        role="region"
        aria-label={label}
        className="max-h-72 overflow-auto rounded-md border border-zinc-200 outline-none focus-visible:ring-2 focus-visible:ring-sky-600 dark:border-zinc-800"
      >
        <table className="min-w-full border-collapse text-[12px] leading-5 text-zinc-800 dark:text-zinc-200">
          <caption
            className={
              caption ? "px-2.5 py-1.5 text-left text-xs font-medium text-zinc-700 dark:text-zinc-300" : "sr-only"
            }
          >
            {caption ?? label}
          </caption>
          <thead className="sticky top-0 bg-zinc-100 dark:bg-zinc-900">
            <tr>
              {columns.map((column, index) => (
                <th
                  key={index}
                  scope="col"
                  className={`whitespace-nowrap px-2.5 py-1 font-semibold text-zinc-900 dark:text-zinc-100 ${align(index)}`}
                >
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {rows.map((row, rowIndex) => (
              <tr key={rowIndex}>
                {columns.map((_, index) => {
                  const text = cellText(row[index]);
                  return (
                    <td
                      key={index}
                      className={`px-2.5 py-1 align-top ${align(index)} ${text.length > WRAP_CHARS ? "min-w-48" : "whitespace-nowrap"} ${isMissing(row[index]) ? "text-zinc-500 dark:text-zinc-400" : ""}`}
                    >
                      {text}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {note && <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{note}</p>}
    </div>
  );
}

/** A column of numbers, some perhaps missing: right-aligned, so that the digits line up. */
function isNumericColumn(rows: readonly (readonly unknown[])[], column: number): boolean {
  const cells = rows.map((row) => row[column]).filter((cell) => !isMissing(cell));
  return cells.length > 0 && cells.every((cell) => typeof cell === "number");
}

function isMissing(cell: unknown): boolean {
  return cell === null || cell === undefined;
}
