"use client";

import { useCallback, useEffect, useRef, useState, type PointerEvent } from "react";

const STORAGE_KEY = "toolsmith.panel";
const MIN_WIDTH = 320;
const MAX_WIDTH = 960;
/** Tailwind's lg: the panel sits beside the chat from here on, and is a drawer below. */
const WIDE_SCREEN = "(min-width: 64rem)";

/** The reasoning panel's width and collapsed state on wide screens (remembered), and the drawers on narrow ones. */
export function usePanelLayout() {
  const [width, setWidth] = useState(460);
  const [collapsed, setCollapsed] = useState(false);
  const [drawer, setDrawer] = useState<"none" | "sidebar" | "panel">("none");
  const closeDrawer = useCallback(() => setDrawer("none"), []);

  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
      // Reading a browser-only setting after hydration is the point of this effect.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      if (typeof saved.width === "number") setWidth(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, saved.width)));
      if (typeof saved.collapsed === "boolean") setCollapsed(saved.collapsed);
    } catch {
      // A corrupt setting is as good as none.
    }
  }, []);

  const save = useCallback(
    (next: { width: number; collapsed: boolean }) => localStorage.setItem(STORAGE_KEY, JSON.stringify(next)),
    [],
  );

  const toggleCollapsed = useCallback(() => {
    setCollapsed((value) => {
      save({ width, collapsed: !value });
      return !value;
    });
  }, [save, width]);

  const startResize = useCallback(
    (event: PointerEvent<HTMLElement>) => {
      event.preventDefault();
      const startX = event.clientX;
      const startWidth = width;
      let latest = startWidth;
      const move = (moveEvent: globalThis.PointerEvent) => {
        latest = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, startWidth + startX - moveEvent.clientX));
        setWidth(latest);
      };
      const up = () => {
        window.removeEventListener("pointermove", move);
        window.removeEventListener("pointerup", up);
        save({ width: latest, collapsed });
      };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", up);
    },
    [collapsed, save, width],
  );

  /** Show the panel (a permalink to a card): on wide screens uncollapsed for this visit, on narrow ones as a drawer. */
  const openPanel = useCallback(() => {
    setCollapsed(false);
    if (!window.matchMedia(WIDE_SCREEN).matches) setDrawer("panel");
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && closeDrawer();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [closeDrawer]);

  // An opened drawer takes the focus, and gives it back to what opened it when it closes.
  const sidebarRef = useRef<HTMLDivElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (drawer === "none") {
      opener.current?.focus();
      opener.current = null;
      return;
    }
    opener.current = document.activeElement as HTMLElement | null;
    const container = (drawer === "sidebar" ? sidebarRef : panelRef).current;
    container?.querySelector<HTMLElement>("a[href], button:not([disabled])")?.focus();
  }, [drawer]);

  return {
    width,
    collapsed,
    toggleCollapsed,
    openPanel,
    startResize,
    drawer,
    setDrawer,
    closeDrawer,
    sidebarRef,
    panelRef,
  };
}
