"use client";

import { diffLines } from "diff";
import { useId, useMemo, useState } from "react";
import type { Tool } from "@/lib/api/client";
import { LANGUAGE_NAMES, toolLanguage } from "./tool-language";

const versionOf = (versions: Tool[], version: number) => versions.find((candidate) => candidate.version === version);

/** What changed in the code between two versions, line by line. */
export function VersionDiff({ versions }: { versions: Tool[] }) {
  const id = useId();
  const [from, setFrom] = useState(Math.max(1, versions.length - 1));
  const [to, setTo] = useState(versions.length);
  const parts = useMemo(() => {
    const code = (version: number) => versionOf(versions, version)?.code ?? "";
    return diffLines(code(from), code(to));
  }, [versions, from, to]);
  if (versions.length < 2) return <p className="text-sm text-zinc-600 dark:text-zinc-400">One version so far.</p>;

  // A version may be written in the other language: then each one is named with its own (the page names one only).
  const mixed = new Set(versions.map(toolLanguage)).size > 1;
  const named = (version: number) => {
    const tool = versionOf(versions, version);
    return mixed && tool ? `v${version} (${LANGUAGE_NAMES[toolLanguage(tool)]})` : `v${version}`;
  };

  const picker = (label: string, value: number, onChange: (version: number) => void) => (
    <label className="text-sm">
      {label}{" "}
      <select
        value={value}
        onChange={(event) => onChange(Number(event.target.value))}
        className="rounded-md border border-zinc-300 bg-white px-1.5 py-1 dark:border-zinc-700 dark:bg-zinc-900"
      >
        {versions.map((version) => (
          <option key={version.version} value={version.version}>
            {named(version.version)}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div>
      <div className="flex gap-3">
        {picker("From", from, setFrom)}
        {picker("to", to, setTo)}
      </div>
      <pre
        id={id}
        tabIndex={0}
        aria-label={`Changes from ${named(from)} to ${named(to)}`}
        className="mt-2 max-h-96 overflow-auto rounded-lg border border-zinc-200 bg-zinc-50 py-2 font-mono text-[12.5px] leading-5 outline-none focus-visible:ring-2 focus-visible:ring-sky-600 dark:border-zinc-800 dark:bg-zinc-950"
        data-testid="version-diff"
      >
        {parts.flatMap((part, index) =>
          part.value
            .replace(/\n$/, "")
            .split("\n")
            .map((line, lineIndex) => (
              <span
                key={`${index}-${lineIndex}`}
                className={`block px-3 ${part.added ? "bg-emerald-100 text-emerald-950 dark:bg-emerald-950/60 dark:text-emerald-100" : part.removed ? "bg-rose-100 text-rose-950 dark:bg-rose-950/60 dark:text-rose-100" : ""}`}
              >
                {part.added ? "+ " : part.removed ? "- " : "  "}
                {line}
              </span>
            )),
        )}
      </pre>
    </div>
  );
}
