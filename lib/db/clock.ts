import { processWide } from "@/lib/process-wide";
import { liveSql, provider } from "./client";

/** Readings kept: the offset is the one read with the quickest answer among them, the least disturbed by delays. */
const READINGS = 8;

/**
 * Milliseconds since the epoch on a clock that is never stepped: the system's time when the process started plus the
 * monotonic time since. The system's clock can be stepped (by NTP, by hand), which would make the readings kept
 * disagree with each other, and a round trip measured across a step wrong.
 */
const steadyEpochMs = (steadyMs = performance.now()) => performance.timeOrigin + steadyMs;

/**
 * The database's clock, as this instance reads it. What one instance writes and another compares with its own time
 * (a run's lease, when a run finished, the order of a conversation's messages) is on this clock: on each machine's
 * own, a clock some seconds off would take a live run for dead and make it run twice, leave a dead one's run waiting
 * seconds longer than its lease, or put a turn's messages before the previous turn's. Each instance reads
 * PostgreSQL's clock at every heartbeat (lib/agent/claims.ts) and adds the difference to its own; with SQLite (one
 * process) its own clock is the database's.
 */
class DatabaseClock {
  private readings: { offsetMs: number; roundTripMs: number }[] = [];
  private offsetMs = 0;
  private reading?: Promise<void>;

  /** Now, on the database's clock. */
  now(): Date {
    return this.at(performance.now());
  }

  /** A time of this process's monotonic clock (`performance.now()`), on the database's clock. */
  at(steadyMs: number): Date {
    return new Date(steadyEpochMs(steadyMs) + this.offsetMs);
  }

  /**
   * Read the database's clock again in the background, unless a reading is under way. One that fails is skipped (the
   * offset stays): the heartbeat, which does not wait for it, says what is wrong with the database.
   */
  refresh(): void {
    this.reading ??= this.read()
      .catch(() => {})
      .finally(() => (this.reading = undefined));
  }

  /** Read the database's clock: it is taken to have read its time halfway through the round trip. */
  async read(): Promise<void> {
    if (provider !== "postgresql") return;
    const sent = performance.now();
    const [{ ms }] = await liveSql.rows<{ ms: unknown }>(`SELECT EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS "ms"`);
    const received = performance.now();
    const databaseMs = Number(ms);
    if (!Number.isFinite(databaseMs)) throw new Error(`The database answered ${String(ms)} for its time.`);
    this.readings = [...this.readings.slice(1 - READINGS), { offsetMs: databaseMs - steadyEpochMs((sent + received) / 2), roundTripMs: received - sent }];
    this.offsetMs = this.readings.reduce((best, reading) => (reading.roundTripMs < best.roundTripMs ? reading : best)).offsetMs;
  }
}

export const databaseClock: DatabaseClock = processWide("databaseClock", () => new DatabaseClock());
