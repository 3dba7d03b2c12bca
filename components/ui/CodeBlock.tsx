"use client";

import { memo, useEffect, useMemo, useState } from "react";
import { CopyButton } from "./CopyButton";

type Highlighter = typeof import("./highlight").highlightLines;
let highlighter: Highlighter | undefined;
let loading: Promise<Highlighter> | undefined;

/** highlight.js loads after the page is interactive: code shows as plain text first, then in colour. */
function useHighlighter(): Highlighter | undefined {
  const [loaded, setLoaded] = useState<Highlighter | undefined>(() => highlighter);
  useEffect(() => {
    if (loaded) return;
    loading ??= import("./highlight").then((module) => (highlighter = module.highlightLines));
    let active = true;
    void loading.then((fn) => active && setLoaded(() => fn));
    return () => {
      active = false;
    };
  }, [loaded]);
  return loaded;
}

function plainLines(code: string): string[] {
  return code.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").split("\n");
}

interface CodeBlockProps {
  code: string;
  language?: string;
  /** 1-based line numbers to mark (e.g. where a policy violation is). */
  markedLines?: ReadonlySet<number>;
  showLineNumbers?: boolean;
  className?: string;
}

export const CodeBlock = memo(function CodeBlock({
  code,
  language,
  markedLines,
  showLineNumbers = false,
  className = "",
}: CodeBlockProps) {
  const highlight = useHighlighter();
  const lines = useMemo(() => (highlight ? highlight(code, language) : plainLines(code)), [highlight, code, language]);
  return (
    <div
      className={`group relative overflow-hidden rounded-lg border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950 ${className}`}
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-1 text-xs text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        <span className="font-mono">{language ?? "text"}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      {/* Focusable, so a keyboard can scroll it. */}
      <pre
        tabIndex={0}
        aria-label={`${language ?? "text"} code`}
        className="hljs max-h-[28rem] overflow-auto py-2 text-[12.5px] leading-5 outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-sky-600"
      >
        <code className="block min-w-max font-mono">
          {lines.map((html, index) => {
            const marked = markedLines?.has(index + 1);
            return (
              <span
                key={index}
                data-marked={marked ? "true" : undefined}
                className={`flex px-3 ${marked ? "bg-rose-500/15 shadow-[inset_3px_0_0] shadow-rose-500" : ""}`}
              >
                {showLineNumbers && (
                  <span className="mr-4 inline-block w-6 shrink-0 select-none text-right text-zinc-600 dark:text-zinc-400">
                    {index + 1}
                  </span>
                )}
                <span dangerouslySetInnerHTML={{ __html: html || " " }} />
              </span>
            );
          })}
        </code>
      </pre>
    </div>
  );
});
