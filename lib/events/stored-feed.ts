import { listEventsAfter } from "@/lib/db/queries/events";
import { notifications } from "@/lib/db/driver/notifications";
import { conversationsRunning } from "@/lib/db/queries/runs";
import { processWide } from "@/lib/platform/process-wide";
import type { SequencedEvent } from "@/lib/contract/events";

/** Followers read the store at least this often, whatever they are told (a notification can be missed). */
const POLL_MS = 1_000;

export interface StoredFollower {
  /** The seq of the last event it has. */
  after: number;
  /** New stored events, in order. */
  deliver(events: SequencedEvent[]): void;
  /** Its conversation has no running run any more, on any instance (checked every poll). */
  idle(): void;
}

/**
 * This instance's followers of runs that other instances execute: an announcement marks the conversations it names,
 * and one query reads the new events of all of them, so followers cost one read per announcement, not one each.
 */
class StoredFeed {
  private readonly followers = new Map<string, Set<StoredFollower>>();
  private readonly marked = new Set<string>();
  private reading = false;
  private unsubscribe?: () => void;
  private poll?: NodeJS.Timeout;

  follow(conversationId: string, follower: StoredFollower): () => void {
    if (!this.followers.has(conversationId)) this.followers.set(conversationId, new Set());
    this.followers.get(conversationId)!.add(follower);
    this.start();
    this.mark([conversationId]);
    return () => {
      const set = this.followers.get(conversationId);
      set?.delete(follower);
      if (set?.size === 0) this.followers.delete(conversationId);
      if (this.followers.size === 0) this.stop();
    };
  }

  private start(): void {
    this.unsubscribe ??= notifications.subscribe("events", (payload) =>
      this.mark(payload.split("\n").map((line) => line.slice(0, line.indexOf(" ")))),
    );
    this.poll ??= setInterval(() => void this.pollAll(), POLL_MS);
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.poll);
    this.poll = undefined;
  }

  private mark(conversationIds: string[]): void {
    for (const id of conversationIds) if (this.followers.has(id)) this.marked.add(id);
    if (this.marked.size > 0) void this.read();
  }

  /** Read the marked conversations' new events, again while more are marked meanwhile. */
  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.marked.size > 0) {
        // The followers read for: one that arrives during the query is marked again and read for next time.
        const readFor = new Map<string, StoredFollower[]>();
        for (const id of this.marked) if (this.followers.has(id)) readFor.set(id, [...this.followers.get(id)!]);
        this.marked.clear();
        if (readFor.size === 0) break;
        const after = new Map(
          [...readFor].map(([id, followers]) => [id, Math.min(...followers.map((follower) => follower.after))]),
        );
        for (const [id, events] of await listEventsAfter(after)) {
          for (const follower of readFor.get(id)!) {
            const fresh = events.filter((event) => event.seq > follower.after);
            if (fresh.length > 0) follower.deliver(fresh);
          }
        }
      }
    } catch (error) {
      console.error("Could not read stored events for followers:", error);
    } finally {
      this.reading = false;
    }
  }

  private async pollAll(): Promise<void> {
    const ids = [...this.followers.keys()];
    if (ids.length === 0) return;
    try {
      const running = await conversationsRunning(ids);
      this.mark(ids);
      for (const id of ids) if (!running.has(id)) for (const follower of this.followers.get(id) ?? []) follower.idle();
    } catch (error) {
      console.error("Could not poll for stored events:", error);
    }
  }
}

export const storedFeed: StoredFeed = processWide("storedFeed", () => new StoredFeed());
