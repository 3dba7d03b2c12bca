"use client";

import { useEffect, useRef, useState } from "react";
import { problemText } from "@/lib/api/client";

export interface Paged<Item> {
  items: Item[];
  nextCursor: string | null;
}

/**
 * A listing a person filters and pages through: the server's first page, the first page again whenever the
 * filters change (after `delayMs`, so typing sends one request), and older pages appended on demand. `fetchPage`
 * must not change between renders (a module-level function).
 */
export function useFilteredPages<Item, Filters>(
  initial: Paged<Item>,
  filters: Filters,
  fetchPage: (filters: Filters, cursor?: string) => Promise<Paged<Item>>,
  delayMs = 0,
) {
  const [page, setPage] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  // The first render shows the server's page for the initial filters: nothing to fetch.
  const first = useRef(true);

  useEffect(() => {
    if (first.current) return void (first.current = false);
    let current = true;
    const timer = setTimeout(() => {
      fetchPage(filters).then(
        (result) => current && (setPage(result), setProblem(null)),
        (error) => current && setProblem(problemText(error)),
      );
    }, delayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [filters, fetchPage, delayMs]);

  const loadMore = async () => {
    if (!page.nextCursor) return;
    try {
      const next = await fetchPage(filters, page.nextCursor);
      setPage((shown) => ({ items: [...shown.items, ...next.items], nextCursor: next.nextCursor }));
    } catch (error) {
      setProblem(problemText(error));
    }
  };

  return { items: page.items, hasMore: page.nextCursor !== null, problem, loadMore };
}
