import { EventEmitter } from "node:events";
import pg from "pg";
import { config, databaseConfig } from "@/lib/settings/config";
import { processWide } from "@/lib/platform/process-wide";
import { liveSql, provider } from "./client";
import type { ReviewEvent } from "@/lib/contract/events";

/**
 * Messages between the instances of one database (LISTEN/NOTIFY; an in-process emitter on SQLite), to every subscriber
 * of every instance, best effort, so every reader also polls. The topics: docs/architecture.md, "Notifications".
 */
export type Topic = "events" | "runs" | "shares" | "sessions";
export type RunMessage =
  | { kind: "cancel"; runId: string }
  | { kind: "approval"; runId: string; approvalId: string; approved: boolean }
  /** A review to write into the run's log (lib/review/log.ts). */
  | { kind: "review"; runId: string; event: ReviewEvent }
  /** An instance that is stopping gave up its runs' leases: take them over now. */
  | { kind: "released" };

const CHANNELS: Record<Topic, string> = {
  events: "toolsmith_events",
  runs: "toolsmith_runs",
  shares: "toolsmith_shares",
  sessions: "toolsmith_sessions",
};
const RECONNECT_MS = 1_000;
const LISTENER_NAME = "toolsmith-listener";
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7_900;

class Notifications {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private listening?: Promise<void>;

  /**
   * PostgreSQL: that conversations' events are stored up to the given seqs, for the statement that stores them to send
   * with `pg_notify(channel, payload)`: no round trip of its own, and delivered at commit, never for a failed one.
   */
  announcement(storedThrough: Map<string, number>): { channel: string; payloads: string[] } {
    return { channel: CHANNELS.events, payloads: announcements(storedThrough) };
  }

  /** SQLite (one process): the same announcement, to this process's subscribers, once the events are stored. */
  announceStored(storedThrough: Map<string, number>): void {
    for (const payload of announcements(storedThrough)) this.local.emit("events", payload);
  }

  async publish(topic: Topic, payload: string): Promise<void> {
    if (provider === "sqlite") {
      this.local.emit(topic, payload);
      return;
    }
    await liveSql.execute(`SELECT pg_notify(?, ?)`, [CHANNELS[topic], payload]);
  }

  subscribe(topic: Topic, listener: (payload: string) => void): () => void {
    void this.ready();
    this.local.on(topic, listener);
    return () => this.local.off(topic, listener);
  }

  /**
   * One connection per instance LISTENs on every channel. It reconnects after a failure, and, since a partition can
   * leave it silent without failing, is asked every quarter of a lease whether it still answers, and replaced if not.
   */
  private async listen(): Promise<void> {
    const database = databaseConfig();
    if (database.provider !== "postgresql") return;
    const checkMs = config.leaseMs / 4;
    // Named, so that an operator (or a test) tells it from the pools' connections in pg_stat_activity.
    const client = new pg.Client({
      connectionString: database.url,
      application_name: LISTENER_NAME,
      keepAlive: true,
      connectionTimeoutMillis: checkMs,
      query_timeout: checkMs,
    });
    let check: NodeJS.Timeout | undefined;
    let retrying = false;
    // Once per connection: a failure can be reported twice (an error event, and the query it failed).
    const retry = () => {
      if (retrying) return;
      retrying = true;
      clearInterval(check);
      client.removeAllListeners();
      client.end().catch(() => {});
      setTimeout(() => (this.listening = this.listen()), RECONNECT_MS).unref();
    };
    client.on("error", (error) => {
      console.error("The PostgreSQL notification listener failed; reconnecting:", error.message);
      retry();
    });
    client.on("notification", ({ channel, payload }) => {
      const topic = (Object.keys(CHANNELS) as Topic[]).find((name) => CHANNELS[name] === channel);
      if (topic && payload !== undefined) this.local.emit(topic, payload);
    });
    try {
      await client.connect();
      await client.query(
        Object.values(CHANNELS)
          .map((channel) => `LISTEN ${channel}`)
          .join("; "),
      );
      check = setInterval(
        () =>
          void client.query("SELECT 1").catch((error: Error) => {
            console.error("The PostgreSQL notification listener does not answer; reconnecting:", error.message);
            retry();
          }),
        checkMs,
      ).unref();
    } catch (error) {
      console.error("Could not listen for PostgreSQL notifications; retrying:", (error as Error).message);
      retry();
    }
  }

  /** Resolves once this instance listens (PostgreSQL), so that nothing published after it is missed. */
  ready(): Promise<void> {
    if (provider === "postgresql") this.listening ??= this.listen();
    return this.listening ?? Promise.resolve();
  }
}

/** The lines "<conversationId> <lastSeq>", in as few payloads as PostgreSQL takes. */
function announcements(storedThrough: Map<string, number>): string[] {
  const payloads: string[] = [];
  let payload = "";
  for (const [conversationId, lastSeq] of storedThrough) {
    const line = `${conversationId} ${lastSeq}`;
    if (payload && payload.length + line.length + 1 > MAX_PAYLOAD) {
      payloads.push(payload);
      payload = "";
    }
    payload = payload ? `${payload}\n${line}` : line;
  }
  if (payload) payloads.push(payload);
  return payloads;
}

export const notifications: Notifications = processWide("notifications", () => new Notifications());
