"use client";

import { createContext, useContext, useSyncExternalStore } from "react";
import type { CardFind, TraceFind } from "@/lib/trace/find";

interface FindSnapshot {
  find: TraceFind;
  /** The search as typed, trimmed: what the matching cards mark. */
  needle: string;
  /** The card navigated to (a permalink, a match, a failure): built, opened, highlighted. */
  target: number | null;
  /** Cards once navigated to stay open. */
  opened: ReadonlySet<number>;
}

const nothingFound: TraceFind = { cards: new Map(), hiddenRuns: new Set(), matches: [], failures: [] };

/**
 * What the trace panel finds, for its cards to read. Each card selects its own small part (a string, a boolean),
 * so a keystroke renders again only the cards whose part changed, never the whole trace.
 */
export class FindStore {
  private snapshot: FindSnapshot = { find: nothingFound, needle: "", target: null, opened: new Set() };
  private readonly listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  get = () => this.snapshot;

  show(find: TraceFind, needle: string): void {
    this.update({ ...this.snapshot, find, needle });
  }

  aim(target: number | null): void {
    const opened = target === null ? this.snapshot.opened : new Set(this.snapshot.opened).add(target);
    this.update({ ...this.snapshot, target, opened });
  }

  private update(next: FindSnapshot): void {
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  }
}

export const FindStoreContext = createContext<FindStore | null>(null);

const noSubscription = () => () => {};

/** A part of the store; `fallback` outside a trace panel and while the server renders. */
function useFindPart<T extends string | boolean>(select: (snapshot: FindSnapshot) => T, fallback: T): T {
  const store = useContext(FindStoreContext);
  return useSyncExternalStore(
    store?.subscribe ?? noSubscription,
    () => (store ? select(store.get()) : fallback),
    () => fallback,
  );
}

/** The search to mark in a card's text: set only while the card matches. */
export const useCardMark = (eventId: number) =>
  useFindPart((snapshot) => (snapshot.find.cards.get(eventId) === "match" ? snapshot.needle : ""), "");

/** Whether the card was navigated to: what it folds (input, code, reasoning) is shown. */
export const useCardOpened = (eventId: number) => useFindPart((snapshot) => snapshot.opened.has(eventId), false);

export const useRunHidden = (runId: string) => useFindPart((snapshot) => snapshot.find.hiddenRuns.has(runId), false);

/**
 * The find state of a card (a step, a call, a run's error) and the attributes of its outermost element: hidden by
 * the filter, ringed as a match, and, as the target, focusable and current with a ring that fades.
 */
export function useFindCard(eventId: number) {
  const state = useFindPart<CardFind>((snapshot) => snapshot.find.cards.get(eventId) ?? "plain", "plain");
  const target = useFindPart((snapshot) => snapshot.target === eventId, false);
  const mark = useCardMark(eventId);
  return {
    state,
    target,
    mark,
    attributes: {
      "data-find-card": eventId,
      "data-find": state,
      hidden: state === "hidden",
      tabIndex: target ? -1 : undefined,
      "aria-current": target ? ("true" as const) : undefined,
    },
    className: `${state === "match" ? "ring-2 ring-amber-500 ring-offset-2 dark:ring-offset-zinc-950" : ""} ${
      target
        ? "animate-[card-flash_4s_ease-out] focus:outline-none focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-sky-600"
        : ""
    }`,
  };
}
