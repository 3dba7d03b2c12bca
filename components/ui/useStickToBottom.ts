"use client";

import { useCallback, useEffect, useRef, useState } from "react";

const NEAR_BOTTOM_PX = 80;

/**
 * Keep a scroll container at its bottom while content grows, unless the reader scrolled up; then offer a way back.
 */
export function useStickToBottom<T extends HTMLElement>(content: unknown) {
  const ref = useRef<T>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    stuck.current = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
    setShowJump(!stuck.current);
  }, []);

  const jumpToLatest = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    stuck.current = true;
    setShowJump(false);
    element.scrollTo({ top: element.scrollHeight, behavior: "smooth" });
  }, []);

  useEffect(() => {
    const element = ref.current;
    if (element && stuck.current) element.scrollTop = element.scrollHeight;
  }, [content]);

  return { ref, onScroll, showJump, jumpToLatest };
}
