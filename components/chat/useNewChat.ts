"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect } from "react";

/** Start a new chat: close any drawer and open /. Ctrl+Shift+O (⌘⇧O) does it from anywhere on the page. */
export function useNewChat(closeDrawer: () => void): () => void {
  const router = useRouter();
  const newChat = useCallback(() => {
    closeDrawer();
    router.push("/");
  }, [closeDrawer, router]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "o") {
        event.preventDefault();
        newChat();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [newChat]);

  return newChat;
}
