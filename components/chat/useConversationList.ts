"use client";

import { useCallback, useState } from "react";
import { api, problemText, type ConversationPage } from "@/lib/api/client";

/**
 * The sidebar's conversations: the first page from the server, older pages on demand, refreshed after changes;
 * all of them, or only those with a thumbs down (`showThumbsDown`).
 */
export function useConversationList(firstPage: ConversationPage) {
  const [conversations, setConversations] = useState(firstPage.conversations);
  const [nextCursor, setNextCursor] = useState(firstPage.nextCursor);
  const [problem, setProblem] = useState<string | null>(null);
  const [thumbsDown, setThumbsDown] = useState(false);

  const load = useCallback(async (onlyThumbsDown: boolean) => {
    try {
      const page = await api.listConversations(undefined, onlyThumbsDown);
      setConversations(page.conversations);
      setNextCursor(page.nextCursor);
    } catch (error) {
      setProblem(problemText(error));
    }
  }, []);

  const refresh = useCallback(() => load(thumbsDown), [load, thumbsDown]);

  const showThumbsDown = useCallback(
    (only: boolean) => {
      setThumbsDown(only);
      void load(only);
    },
    [load],
  );

  const loadOlder = useCallback(async () => {
    if (!nextCursor) return;
    try {
      const page = await api.listConversations(nextCursor, thumbsDown);
      setConversations((list) => [...list, ...page.conversations]);
      setNextCursor(page.nextCursor);
    } catch (error) {
      setProblem(problemText(error));
    }
  }, [nextCursor, thumbsDown]);

  return { conversations, hasOlder: nextCursor !== null, problem, refresh, loadOlder, thumbsDown, showThumbsDown };
}

export type ConversationList = ReturnType<typeof useConversationList>;
