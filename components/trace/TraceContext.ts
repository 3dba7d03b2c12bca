"use client";

import { createContext, useContext } from "react";
import type { ConversationSource } from "@/lib/api/client";

/**
 * Who is looking at a trace, and through what: the owner on /c/{id}, or anyone with a share link on /s/{token}.
 * The cards read it for what they offer (permalinks, review, continue from here) without threading props.
 */
export interface TraceViewer {
  /** The conversation's API base: /api/conversations/{id} for the owner, /api/share/{token} for a link holder. */
  source: ConversationSource;
  /** The page the trace is on, for permalinks: /c/{id} or /s/{token}. */
  pagePath: string;
  owner: boolean;
  /** The tool id (GET /api/tools/{id}) of a tool the conversation registered, by name: the owner acts on it. */
  toolIdOf: (name: string) => string | undefined;
  /** Reviewing: the labels an annotation may have, and who the viewer is among the authors (once known). */
  review: {
    labels: string[];
    /** The viewer's author key in this conversation: their own annotations are theirs to delete. */
    authorKey?: string;
    /** Learnt from the viewer's first review, on a page that did not know it (a first visit). */
    learnAuthorKey: (key: string) => void;
  };
}

export const TraceViewerContext = createContext<TraceViewer | null>(null);

export const useTraceViewer = () => useContext(TraceViewerContext);
