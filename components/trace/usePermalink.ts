"use client";

import { useEffect, useEffectEvent, useRef } from "react";
import { hasCard } from "@/lib/trace/find";
import { isRunning, type TraceState } from "@/lib/trace/state";

/** A card navigated to: `focus` moves the keyboard there too; `seq` tells one visit from the next to the same card. */
export interface FindTarget {
  eventId: number;
  focus: boolean;
  seq: number;
}

/** The card the page's address names (#e{eventId}, the permalink CardActions gives), if any. */
export function linkedCard(): number | null {
  const match = /^#e(\d+)$/.exec(window.location.hash);
  return match ? Number(match[1]) : null;
}

/** Call `onLink` with the linked card when the page opens and whenever its address's hash changes. */
export function usePermalink(onLink: (eventId: number) => void): void {
  const follow = useEffectEvent(() => {
    const eventId = linkedCard();
    if (eventId !== null) onLink(eventId);
  });
  useEffect(() => {
    const onHashChange = () => follow();
    onHashChange();
    window.addEventListener("hashchange", onHashChange);
    return () => window.removeEventListener("hashchange", onHashChange);
  }, []);
}

/** A panel closed (a narrow screen's drawer, a collapsed panel) is opened when the address links to a card. */
export const usePermalinkOpensPanel = (open: () => void) => usePermalink(open);

/** How long to wait for a card to be built and hydrated (a long trace on a slow machine), and the panel to show. */
const LANDING_WAIT_MS = 30_000;

/**
 * Land on `target` once its card is on the page (built by LazyMount, hydrated: it has aria-current, and displayed)
 * and the page has been parsed.
 * A card the trace does not have yet is waited for while a run streams; when none runs, `onMissing` says so.
 */
export function useLanding(
  target: FindTarget | null,
  trace: TraceState,
  land: (element: HTMLElement, target: FindTarget) => void,
  onMissing: () => void,
): void {
  const landed = useRef(0);
  const present = target !== null && hasCard(trace, target.eventId);
  const running = isRunning(trace);
  const arrive = useEffectEvent(land);
  const miss = useEffectEvent(onMissing);
  useEffect(() => {
    if (!target || landed.current === target.seq) return;
    if (!present) {
      if (!running) {
        landed.current = target.seq;
        miss();
      }
      return;
    }
    let frame = 0;
    const deadline = performance.now() + LANDING_WAIT_MS;
    const attempt = () => {
      const element = document.querySelector<HTMLElement>(`[data-find-card="${target.eventId}"][aria-current]`);
      // When it has parsed the page, the browser scrolls to the address's #e… and clears the focus (that anchor is
      // not focusable): the focus of a landing before then would be lost.
      if (element && element.getClientRects().length > 0 && document.readyState !== "loading") {
        landed.current = target.seq;
        arrive(element, target);
      } else if (performance.now() < deadline) {
        frame = requestAnimationFrame(attempt);
      }
    };
    attempt();
    return () => cancelAnimationFrame(frame);
  }, [target, present, running]);
}
