"use client";

import { useMemo, useState } from "react";
import { tableOf, type ResultTable } from "@/lib/trace/table";
import { CopyButton } from "@/components/ui/CopyButton";
import { DataTable } from "@/components/ui/DataTable";
import { JsonView } from "@/components/ui/JsonView";

const VIEWS = [
  ["table", "Table"],
  ["json", "JSON"],
] as const;

/** A call's output: a table when it is one (lib/trace/table.ts), with its JSON a toggle away; otherwise its JSON. */
export function ResultView({ value, callName }: { value: unknown; callName: string }) {
  const table = useMemo(() => tableOf(value), [value]);
  const [view, setView] = useState<"table" | "json">("table");
  if (!table) return <JsonView value={value} label="Output" />;
  return (
    <div className="min-w-0">
      {view === "table" ? (
        <TableOutput table={table} value={value} callName={callName} />
      ) : (
        <JsonView value={value} label="Output" />
      )}
      {/* After either view, so the toggle keeps its place and its focus when pressed. */}
      <div role="group" aria-label={`Show the ${callName} output as`} className="mt-1.5 flex justify-end gap-1">
        {VIEWS.map(([name, text]) => (
          <button
            key={name}
            type="button"
            aria-pressed={view === name}
            onClick={() => setView(name)}
            className="rounded-md border border-zinc-200 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 aria-pressed:border-zinc-800 aria-pressed:bg-zinc-800 aria-pressed:text-white dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-pressed:border-zinc-200 dark:aria-pressed:bg-zinc-200 dark:aria-pressed:text-zinc-900"
          >
            {text}
          </button>
        ))}
      </div>
    </div>
  );
}

function TableOutput({ table, value, callName }: { table: ResultTable; value: unknown; callName: string }) {
  const json = useMemo(() => JSON.stringify(value, null, 2), [value]);
  return (
    <div className="min-w-0">
      <div className="mb-1 flex items-center justify-between">
        <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">
          Output
          {table.under && <code className="ml-1.5 normal-case tracking-normal">{table.under}</code>}
        </span>
        <CopyButton text={json} label="Copy output" />
      </div>
      <DataTable
        columns={table.columns}
        rows={table.rows}
        label={`Output of the ${callName} call${table.under ? `, its ${table.under}` : ""}`}
        note={leftOut(table)}
      />
    </div>
  );
}

function leftOut({ columns, rows, truncatedRows, truncatedColumns }: ResultTable): string | undefined {
  const cut = [
    truncatedRows && `the first ${rows.length} of ${rows.length + truncatedRows} rows`,
    truncatedColumns && `the first ${columns.length} of ${columns.length + truncatedColumns} columns`,
  ].filter(Boolean);
  return cut.length > 0 ? `Showing ${cut.join(" and ")}; the JSON has them all.` : undefined;
}
