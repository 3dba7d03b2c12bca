"use client";

import { useCallback, useState } from "react";
import { api, problemText, type ConversationPage } from "@/lib/api/client";

/** The sidebar's conversations: the first page from the server, older pages on demand, refreshed after changes. */
export function useConversationList(firstPage: ConversationPage) {
  const [conversations, setConversations] = useState(firstPage.conversations);
  const [nextCursor, setNextCursor] = useState(firstPage.nextCursor);
  const [problem, setProblem] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      const page = await api.listConversations();
      setConversations(page.conversations);
      setNextCursor(page.nextCursor);
    } catch (error) {
      setProblem(problemText(error));
    }
  }, []);

  const loadOlder = useCallback(async () => {
    if (!nextCursor) return;
    try {
      const page = await api.listConversations(nextCursor);
      setConversations((list) => [...list, ...page.conversations]);
      setNextCursor(page.nextCursor);
    } catch (error) {
      setProblem(problemText(error));
    }
  }, [nextCursor]);

  return { conversations, hasOlder: nextCursor !== null, problem, refresh, loadOlder };
}

export type ConversationList = ReturnType<typeof useConversationList>;
