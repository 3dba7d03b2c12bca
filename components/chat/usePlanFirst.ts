"use client";

import { useCallback, useEffect, useState } from "react";

const STORAGE_KEY = "toolsmith.plan-first";
/** A new chat (no id yet) and a conversation never switched start from the last choice. */
const LAST = "last";

type Saved = Record<string, boolean>;

function read(): Saved {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch {
    // A corrupt setting is as good as none.
    return {};
  }
}

/** The "Plan first" switch of a conversation, remembered in this browser per conversation. */
export function usePlanFirst(conversationId: string | null) {
  const [planFirst, setPlanFirst] = useState(false);

  useEffect(() => {
    const saved = read();
    // Reading a browser-only setting after hydration is the point of this effect.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setPlanFirst(saved[conversationId ?? LAST] ?? saved[LAST] ?? false);
  }, [conversationId]);

  const choose = useCallback(
    (on: boolean) => {
      setPlanFirst(on);
      localStorage.setItem(
        STORAGE_KEY,
        JSON.stringify({ ...read(), [LAST]: on, ...(conversationId && { [conversationId]: on }) }),
      );
    },
    [conversationId],
  );
  return [planFirst, choose] as const;
}
