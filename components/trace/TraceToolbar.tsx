"use client";

import { ChevronDown, ChevronUp, Search, TriangleAlert } from "lucide-react";
import type { RefObject } from "react";
import type { TraceFilter } from "@/lib/trace/find";
import type { TraceFindControls } from "./useTraceFind";

const FILTERS = [
  ["all", "All cards"],
  ["errors", "Errors only"],
  ["calls", "Tool calls"],
  ["registrations", "Registrations"],
] as const;

const TOOL_PREFIX = "tool:";

const filterValue = (filter: TraceFilter) => (typeof filter === "string" ? filter : `${TOOL_PREFIX}${filter.tool}`);

const parseFilter = (value: string): TraceFilter =>
  value.startsWith(TOOL_PREFIX)
    ? { tool: value.slice(TOOL_PREFIX.length) }
    : (FILTERS.find(([name]) => name === value)?.[0] ?? "all");

const iconButton =
  "grid size-7 place-items-center rounded-md text-zinc-600 hover:bg-zinc-200 disabled:opacity-40 disabled:hover:bg-transparent dark:text-zinc-300 dark:hover:bg-zinc-800";

/**
 * Above the trace: a filter, a search with its count and previous/next match, and previous/next failure. The
 * shortcuts (n, N, j, k, /) work while the focus is in the panel; Enter and Shift+Enter in the search box.
 */
export function TraceToolbar({
  find,
  searchBox,
}: {
  find: TraceFindControls;
  searchBox: RefObject<HTMLInputElement | null>;
}) {
  const { query, needle, matches, failures, matchIndex, failureIndex } = find;
  const filter = filterValue(query.filter);
  const matchCount = !needle
    ? ""
    : matches.length === 0
      ? "No matches"
      : matchIndex === -1
        ? `${matches.length} ${matches.length === 1 ? "match" : "matches"}`
        : `${matchIndex + 1} of ${matches.length}`;
  const failureCount =
    failures.length === 0
      ? "No failures"
      : failureIndex === -1
        ? `${failures.length} ${failures.length === 1 ? "failure" : "failures"}`
        : `Failure ${failureIndex + 1} of ${failures.length}`;
  // A one-tool filter keeps its choice even when the trace no longer calls that tool.
  const toolNames =
    typeof query.filter === "object" && !find.toolNames.includes(query.filter.tool)
      ? [...find.toolNames, query.filter.tool]
      : find.toolNames;

  return (
    <div
      role="search"
      aria-label="Find in the trace"
      className="flex flex-wrap items-center gap-x-2 gap-y-1.5 border-b border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800"
      data-testid="trace-toolbar"
    >
      <select
        aria-label="Show"
        value={filter}
        onChange={(event) => find.setFilter(parseFilter(event.target.value))}
        className="h-8 rounded-md border border-zinc-300 bg-white px-1.5 text-sm text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      >
        {FILTERS.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
        {toolNames.length > 0 && (
          <optgroup label="One tool">
            {toolNames.map((name) => (
              <option key={name} value={`${TOOL_PREFIX}${name}`}>
                {name}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <div className="flex min-w-40 flex-1 items-center gap-1">
        <label className="relative flex-1">
          <span className="sr-only">Search the trace</span>
          <Search
            className="pointer-events-none absolute left-2 top-1/2 size-3.5 -translate-y-1/2 text-zinc-500"
            aria-hidden
          />
          <input
            ref={searchBox}
            type="search"
            value={query.text}
            onChange={(event) => find.setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key !== "Enter") return;
              event.preventDefault();
              find.nextMatch(event.shiftKey ? -1 : 1);
            }}
            placeholder="Search the trace"
            aria-keyshortcuts="/"
            title="Search the trace (/); Enter: next match, Shift+Enter: previous"
            className="h-8 w-full rounded-md border border-zinc-300 bg-white pl-7 pr-2 text-sm text-zinc-900 placeholder:text-zinc-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400"
          />
        </label>
        <span
          aria-live="polite"
          className="min-w-16 text-right text-xs tabular-nums text-zinc-600 dark:text-zinc-400"
          data-testid="match-count"
        >
          {matchCount}
        </span>
        <PreviousNext
          what="match"
          shortcuts={["Shift+N", "N"]}
          hints={["Shift+N, or Shift+Enter in the search", "N, or Enter in the search"]}
          disabled={matches.length === 0}
          go={(direction) => find.nextMatch(direction)}
        />
      </div>
      <div className="flex items-center gap-1">
        <TriangleAlert
          className={`size-3.5 ${failures.length ? "text-rose-600 dark:text-rose-400" : "text-zinc-500"}`}
          aria-hidden
        />
        <span
          aria-live="polite"
          className="text-xs tabular-nums text-zinc-600 dark:text-zinc-400"
          data-testid="failure-count"
        >
          {failureCount}
        </span>
        <PreviousNext
          what="failure"
          shortcuts={["K", "J"]}
          hints={["K", "J"]}
          disabled={failures.length === 0}
          go={(direction) => find.nextFailure(direction)}
        />
      </div>
      {find.missing && (
        <p role="status" className="w-full text-xs text-amber-800 dark:text-amber-300">
          The card this link names is not in this trace.
        </p>
      )}
    </div>
  );
}

/** The previous and next buttons of matches or failures, with their shortcuts in their titles and for AT. */
function PreviousNext({
  what,
  shortcuts,
  hints,
  disabled,
  go,
}: {
  what: string;
  shortcuts: [previous: string, next: string];
  hints: [previous: string, next: string];
  disabled: boolean;
  go: (direction: 1 | -1) => void;
}) {
  return ([-1, 1] as const).map((direction, index) => {
    const label = `${direction === 1 ? "Next" : "Previous"} ${what}`;
    const Icon = direction === 1 ? ChevronDown : ChevronUp;
    return (
      <button
        key={direction}
        type="button"
        aria-label={label}
        title={`${label} (${hints[index]})`}
        aria-keyshortcuts={shortcuts[index]}
        disabled={disabled}
        onClick={() => go(direction)}
        className={iconButton}
      >
        <Icon className="size-4" aria-hidden />
      </button>
    );
  });
}
