"use client";

import { memo, useMemo, useState } from "react";
import { CopyButton } from "./CopyButton";

const PREVIEW_CHARS = 4_000;
/** Values longer than this start folded when `foldLarge` is set: a tool's code as input says little in JSON. */
const FOLD_CHARS = 600;

/** A value as pretty JSON (strings as they are), long values cut to a preview that can be expanded. */
export const JsonView = memo(function JsonView({
  value,
  label,
  foldLarge = false,
}: {
  value: unknown;
  label: string;
  foldLarge?: boolean;
}) {
  const text = useMemo(
    () => (typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "undefined")),
    [value],
  );
  const [expanded, setExpanded] = useState(false);
  const [folded, setFolded] = useState(foldLarge && text.length > FOLD_CHARS);
  const long = text.length > PREVIEW_CHARS;
  const header = (
    <div className="mb-1 flex items-center justify-between">
      <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</span>
      <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
  if (folded) {
    return (
      <div className="min-w-0">
        {header}
        <button
          type="button"
          onClick={() => setFolded(false)}
          className="w-full rounded-md bg-zinc-100 px-2.5 py-2 text-left text-xs text-zinc-600 hover:bg-zinc-200 dark:bg-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Show {label.toLowerCase()} ({formatSize(text.length)})
        </button>
      </div>
    );
  }
  return (
    <div className="min-w-0">
      {header}
      {/* Focusable, so a keyboard can scroll it. */}
      <pre
        tabIndex={0}
        aria-label={label}
        className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded-md bg-zinc-100 px-2.5 py-2 font-mono text-[12px] leading-5 text-zinc-800 outline-none focus-visible:ring-2 focus-visible:ring-sky-600 dark:bg-zinc-900 dark:text-zinc-200"
      >
        {long && !expanded ? `${text.slice(0, PREVIEW_CHARS)}…` : text}
      </pre>
      {long && (
        <button
          type="button"
          onClick={() => setExpanded(!expanded)}
          className="mt-1 text-xs text-sky-700 hover:underline dark:text-sky-400"
        >
          {expanded ? "Show less" : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      )}
    </div>
  );
});

function formatSize(chars: number): string {
  return chars < 1024 ? `${chars} characters` : `${(chars / 1024).toFixed(1)} KB`;
}
