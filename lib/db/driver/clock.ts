import { processWide } from "@/lib/platform/process-wide";
import { liveSql, provider } from "./client";

/** Readings kept: the offset is the one read with the quickest answer among them, the least disturbed by delays. */
const READINGS = 8;
/** How far two readings may disagree beyond their round trips and still be of the same clocks: rounding, drift. */
const TOLERANCE_MS = 2;

/**
 * Milliseconds since the epoch on the monotonic clock: the system's time when the process started plus the time
 * since. NTP (or a person) can step the system's clock; kept against this one, the readings of the database's clock
 * agree with each other, and a round trip is measured right.
 */
const steadyEpochMs = (steadyMs: number) => performance.timeOrigin + steadyMs;

interface Reading {
  offsetMs: number;
  roundTripMs: number;
}

/**
 * The database's clock, as this instance reads it at every heartbeat: the time of whatever one instance writes and
 * another compares (docs/architecture.md, "Clocks"). With SQLite (one process) it is the system's clock.
 */
class DatabaseClock {
  private readings: Reading[] = [];
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
    const sent = performance.now();
    const databaseMs = provider === "postgresql" ? await postgresqlTime() : Date.now();
    const received = performance.now();
    this.keep({ offsetMs: databaseMs - steadyEpochMs((sent + received) / 2), roundTripMs: received - sent });
  }

  /**
   * A reading places the offset within half its round trip. One that disagrees with the offset kept beyond both
   * readings' bounds says the clocks moved apart (the system's clock was stepped; the machine slept, which stops the
   * monotonic clock): the readings before it are dropped.
   */
  private keep(reading: Reading): void {
    const best = this.readings.length > 0 ? quickest(this.readings) : undefined;
    const movedApart =
      best !== undefined &&
      Math.abs(reading.offsetMs - best.offsetMs) > (reading.roundTripMs + best.roundTripMs) / 2 + TOLERANCE_MS;
    this.readings = movedApart ? [reading] : [...this.readings.slice(1 - READINGS), reading];
    this.offsetMs = quickest(this.readings).offsetMs;
  }
}

const quickest = (readings: Reading[]) =>
  readings.reduce((best, reading) => (reading.roundTripMs < best.roundTripMs ? reading : best));

async function postgresqlTime(): Promise<number> {
  const [{ ms }] = await liveSql.rows<{ ms: unknown }>(`SELECT EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS "ms"`);
  const databaseMs = Number(ms);
  if (!Number.isFinite(databaseMs)) throw new Error(`The database answered ${String(ms)} for its time.`);
  return databaseMs;
}

export const databaseClock: DatabaseClock = processWide("databaseClock", () => new DatabaseClock());
