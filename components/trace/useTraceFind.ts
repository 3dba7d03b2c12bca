"use client";

import {
  useCallback,
  useEffect,
  useEffectEvent,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent as ReactKeyboardEvent,
} from "react";
import { findInTrace, noQuery, stepThrough, toolNamesOf, type TraceFilter, type TraceQuery } from "@/lib/trace/find";
import type { TraceState } from "@/lib/trace/state";
import { FindStore } from "./findStore";
import { useLanding, usePermalink, type FindTarget } from "./usePermalink";

/** How long typing pauses before the panel goes to the search's first match. */
const SEARCH_PAUSE_MS = 150;

/**
 * Finding things in the trace panel: the filter and the search, the matches and failures to step through (with the
 * panel's shortcuts), and the card navigated to, from those or from a permalink. `land` scrolls the panel to it.
 */
export function useTraceFind(
  trace: TraceState,
  { showTrace, land }: { showTrace: () => void; land: (element: HTMLElement, target: FindTarget) => void },
) {
  const [query, setQuery] = useState<TraceQuery>(noQuery);
  const found = useMemo(() => findInTrace(trace, query), [trace, query]);
  const toolNames = useMemo(() => toolNamesOf(trace), [trace]);
  const needle = query.text.trim();
  const [store] = useState(() => new FindStore());
  const [target, setTarget] = useState<FindTarget | null>(null);
  const [missing, setMissing] = useState(false);
  const searchBox = useRef<HTMLInputElement>(null);

  // Before paint, so the cards never show a filter or a target the toolbar does not.
  useLayoutEffect(() => store.show(found, needle), [store, found, needle]);
  useLayoutEffect(() => store.aim(target?.eventId ?? null), [store, target]);

  const goTo = useCallback((eventId: number, focus: boolean) => {
    setMissing(false);
    setTarget((previous) => ({ eventId, focus, seq: (previous?.seq ?? 0) + 1 }));
  }, []);

  // A search goes to its first match from the card shown now (which stays when it still matches) once typing
  // pauses: each key only counts and marks, and the panel does not jump, building cards, at every letter.
  const goToFirstMatch = useEffectEvent(() => {
    const first = stepThrough(found.matches, target ? target.eventId - 1 : null, 1);
    if (first !== undefined) goTo(first, false);
  });
  useEffect(() => {
    if (!needle) return;
    const timer = setTimeout(() => goToFirstMatch(), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [needle]);

  usePermalink((eventId) => {
    showTrace();
    if (found.cards.get(eventId) === "hidden") setQuery((current) => ({ ...current, filter: "all" }));
    goTo(eventId, true);
  });
  useLanding(target, trace, land, () => setMissing(true));

  const step = (list: number[], direction: 1 | -1, focus: boolean) => {
    const next = stepThrough(list, target?.eventId ?? null, direction);
    if (next !== undefined) goTo(next, focus);
  };
  const nextMatch = (direction: 1 | -1, focus = false) => step(found.matches, direction, focus);
  const nextFailure = (direction: 1 | -1, focus = false) => step(found.failures, direction, focus);

  /** The panel's shortcuts, only while the focus is in it and not in a field (WCAG 2.1.4). */
  const onPanelKeyDown = (event: ReactKeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if ((event.target as HTMLElement).closest("input, textarea, select, [contenteditable]")) return;
    if (event.key === "/") searchBox.current?.focus();
    else if (event.key === "n") nextMatch(1, true);
    else if (event.key === "N") nextMatch(-1, true);
    else if (event.key === "j") nextFailure(1, true);
    else if (event.key === "k") nextFailure(-1, true);
    else return;
    event.preventDefault();
  };

  return {
    store,
    query,
    setFilter: (filter: TraceFilter) => setQuery((current) => ({ ...current, filter })),
    setText: (text: string) => setQuery((current) => ({ ...current, text })),
    needle,
    toolNames,
    matches: found.matches,
    failures: found.failures,
    /** The index of the card navigated to among the matches and among the failures; -1 when it is not one. */
    matchIndex: target ? found.matches.indexOf(target.eventId) : -1,
    failureIndex: target ? found.failures.indexOf(target.eventId) : -1,
    nextMatch,
    nextFailure,
    /** The permalink named a card this trace does not have. */
    missing,
    searchBox,
    onPanelKeyDown,
  };
}

export type TraceFindControls = Omit<ReturnType<typeof useTraceFind>, "searchBox">;
