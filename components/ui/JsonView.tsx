"use client";

import { memo, useMemo, useState } from "react";
import { CopyButton } from "./CopyButton";

const PREVIEW_CHARS = 4_000;

/** A value as pretty JSON (strings as they are), long values cut to a preview that can be expanded. */
export const JsonView = memo(function JsonView({ value, label }: { value: unknown; label: string }) {
  const text = useMemo(() => (typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "undefined")), [value]);
  const [expanded, setExpanded] = useState(false);
  const long = text.length > PREVIEW_CHARS;
  return (
    <div className="min-w-0">
      <div className="mb-1 flex items-center justify-between">
        <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</span>
        <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
      </div>
      <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded-md bg-zinc-100 px-2.5 py-2 font-mono text-[12px] leading-5 text-zinc-800 dark:bg-zinc-900 dark:text-zinc-200">
        {long && !expanded ? `${text.slice(0, PREVIEW_CHARS)}…` : text}
      </pre>
      {long && (
        <button type="button" onClick={() => setExpanded(!expanded)} className="mt-1 text-xs text-sky-700 hover:underline dark:text-sky-400">
          {expanded ? "Show less" : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      )}
    </div>
  );
});
