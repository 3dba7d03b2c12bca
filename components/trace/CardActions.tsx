"use client";

import { Link2 } from "lucide-react";
import type { ReactNode } from "react";
import { cardAnchor } from "./card-anchor";
import { ContinueFromHere } from "./ContinueFromHere";
import { useTraceViewer } from "./TraceContext";

export { cardAnchor };

/**
 * The small actions of a step's or a tool call's card, at the end of its header: the permalink, and what each
 * feature adds (review, continue from here). `eventId` names the card: its step_started or tool_call event.
 */
export function CardActions({ eventId, label, children }: { eventId: number; label: string; children?: ReactNode }) {
  const viewer = useTraceViewer();
  return (
    <span className="flex items-center gap-1">
      {children}
      {viewer && <ContinueFromHere viewer={viewer} eventId={eventId} label={label} />}
      {viewer && (
        <a
          href={`${viewer.pagePath}#${cardAnchor(eventId)}`}
          aria-label={`Link to ${label}`}
          title="Link to this card"
          className="rounded-md p-1 text-zinc-500 hover:bg-zinc-200/70 hover:text-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-700/60 dark:hover:text-zinc-100"
        >
          <Link2 className="size-3.5" aria-hidden />
        </a>
      )}
    </span>
  );
}
