import type { RunChannel } from "@/lib/events/channel";

export interface ActiveRun {
  channel: RunChannel;
  controller: AbortController;
}

// Runs in progress in this process, by conversation: at most one each. On globalThis for dev-mode reloads.
const globalRuns = globalThis as unknown as { toolsmithActiveRuns?: Map<string, ActiveRun> };
const activeRuns = (globalRuns.toolsmithActiveRuns ??= new Map());

export function activeRun(conversationId: string): ActiveRun | undefined {
  return activeRuns.get(conversationId);
}

/** Claim the conversation for a run; false when another run holds it. Synchronous, so two requests cannot both win. */
export function claimConversation(conversationId: string, run: ActiveRun): boolean {
  if (activeRuns.has(conversationId)) return false;
  activeRuns.set(conversationId, run);
  return true;
}

export function releaseConversation(conversationId: string, run: ActiveRun): void {
  if (activeRuns.get(conversationId) === run) activeRuns.delete(conversationId);
}
