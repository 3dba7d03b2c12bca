"use client";

import { createContext, useContext, useEffect, useRef, useState, type ReactNode, type RefObject } from "react";

/** The scroll container that lazily mounted content lives in. */
export const ScrollRootContext = createContext<RefObject<HTMLElement | null> | null>(null);

const PRELOAD_PX = 1500;

/**
 * Render `children` once they come within reach of the scroll container's viewport, a placeholder of the estimated
 * height until then. Long traces open fast because only what can be seen is built; once built, it stays. `eager`
 * turning true builds it at once: a card a link or a search goes to.
 */
export function LazyMount({
  eager,
  estimatedHeight,
  children,
}: {
  eager: boolean;
  estimatedHeight: number;
  children: ReactNode;
}) {
  const root = useContext(ScrollRootContext);
  const [mounted, setMounted] = useState(eager);
  if (eager && !mounted) setMounted(true);
  const placeholder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (mounted || !placeholder.current) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          setMounted(true);
          observer.disconnect();
        }
      },
      { root: root?.current ?? null, rootMargin: `${PRELOAD_PX}px 0px` },
    );
    observer.observe(placeholder.current);
    return () => observer.disconnect();
  }, [mounted, root]);
  if (mounted) return <>{children}</>;
  return (
    <div
      ref={placeholder}
      style={{ height: estimatedHeight }}
      aria-hidden
      className="rounded-xl border border-dashed border-zinc-200 dark:border-zinc-800"
    />
  );
}
