import { findConversation } from "@/lib/db/conversations";
import { badRequest, notFound } from "./errors";

export type RouteParams = { params: Promise<{ id: string }> };

/** The conversation a route names, or a 404. Every conversation route goes through here. */
export async function requireConversation({ params }: RouteParams) {
  const { id } = await params;
  const conversation = await findConversation(id);
  if (!conversation) throw notFound("The conversation");
  return conversation;
}

/** `Last-Event-ID` (what EventSource sends on reconnect) or `?after=N`: replay only events after it. */
export function lastEventId(request: Request): number {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("after") ?? "0";
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw badRequest("Last-Event-ID (or ?after) must be a non-negative integer event id.");
  return value;
}
