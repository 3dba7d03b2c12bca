import { EventEmitter } from "node:events";
import pg from "pg";
import { databaseConfig } from "@/lib/config";
import { provider, sql } from "./client";

/**
 * Messages between the instances of one database, with no broker: PostgreSQL's LISTEN/NOTIFY, or, for SQLite (one
 * process), an in-process emitter. A message reaches every subscriber of every instance once, this one included.
 * Delivery is best effort (a reconnecting listener misses what was sent meanwhile), so every reader also polls.
 *  - events: lines of "<conversationId> <lastSeq>", once runs' events up to lastSeq are stored (`announceStored`
 *    gathers the announcements of one turn of the event loop into one message);
 *  - runs: a RunMessage for the instance that executes the run, or for all of them.
 */
export type Topic = "events" | "runs";
export type RunMessage =
  | { kind: "cancel"; runId: string }
  | { kind: "approval"; runId: string; approvalId: string; approved: boolean }
  /** An instance that is stopping gave up its runs' leases: take them over now. */
  | { kind: "released" };

const CHANNELS: Record<Topic, string> = { events: "toolsmith_events", runs: "toolsmith_runs" };
const RECONNECT_MS = 1_000;
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7_900;

class Notifications {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private listening?: Promise<void>;
  /** Announcements waiting for the end of this turn of the event loop, by conversation. */
  private stored = new Map<string, number>();

  /**
   * Say that a conversation's events up to `lastSeq` are stored. Hundreds of live runs each store a batch every
   * few milliseconds; one message per turn of the event loop carries all of them.
   */
  announceStored(conversationId: string, lastSeq: number): void {
    if (this.stored.size === 0) setImmediate(() => this.flushStored());
    this.stored.set(conversationId, Math.max(lastSeq, this.stored.get(conversationId) ?? 0));
  }

  private flushStored(): void {
    const lines = [...this.stored].map(([conversationId, lastSeq]) => `${conversationId} ${lastSeq}`);
    this.stored = new Map();
    let payload = "";
    for (const line of lines) {
      if (payload && payload.length + line.length + 1 > MAX_PAYLOAD) {
        this.publish("events", payload).catch((error) => console.error("Could not announce stored events:", error));
        payload = "";
      }
      payload = payload ? `${payload}\n${line}` : line;
    }
    if (payload) this.publish("events", payload).catch((error) => console.error("Could not announce stored events:", error));
  }

  async publish(topic: Topic, payload: string): Promise<void> {
    if (provider === "sqlite") {
      this.local.emit(topic, payload);
      return;
    }
    await sql.execute(`SELECT pg_notify(?, ?)`, [CHANNELS[topic], payload]);
  }

  subscribe(topic: Topic, listener: (payload: string) => void): () => void {
    void this.ready();
    this.local.on(topic, listener);
    return () => this.local.off(topic, listener);
  }

  /** One connection per instance LISTENs on both channels; it reconnects after a failure. */
  private async listen(): Promise<void> {
    const database = databaseConfig();
    if (database.provider !== "postgresql") return;
    const client = new pg.Client({ connectionString: database.url });
    const retry = () => {
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
      await client.query(Object.values(CHANNELS).map((channel) => `LISTEN ${channel}`).join("; "));
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

const globalNotifications = globalThis as unknown as { toolsmithNotifications?: Notifications };
export const notifications: Notifications = (globalNotifications.toolsmithNotifications ??= new Notifications());
