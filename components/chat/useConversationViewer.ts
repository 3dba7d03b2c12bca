"use client";

import { useMemo, useState } from "react";
import type { ConversationSource } from "@/lib/api/client";
import type { RegisteredToolView } from "@/lib/contract/events";
import type { TraceViewer } from "@/components/trace/TraceContext";

/**
 * What a conversation page tells its trace's cards (TraceViewerContext): where the trace comes from and is shown,
 * whether the viewer owns it, the tools it made, and the viewer's review state. Null before there is a conversation.
 */
export function useConversationViewer({
  source,
  pagePath,
  owner,
  tools,
  review,
}: {
  source: ConversationSource | null;
  pagePath: string;
  owner: boolean;
  tools: RegisteredToolView[];
  /** The labels annotations may have, and the viewer's author key when the page knows it. */
  review: { labels: string[]; authorKey?: string };
}): TraceViewer | null {
  // A first visit learns its author key from its first review.
  const [authorKey, setAuthorKey] = useState(review.authorKey);
  return useMemo(
    () =>
      source && {
        source,
        pagePath,
        owner,
        toolIdOf: (name: string) => tools.findLast((tool) => tool.name === name)?.id,
        review: { labels: review.labels, authorKey, learnAuthorKey: setAuthorKey },
      },
    [source, pagePath, owner, tools, review.labels, authorKey],
  );
}
