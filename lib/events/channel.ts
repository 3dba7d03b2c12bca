import { config } from "@/lib/settings/config";
import { databaseClock } from "@/lib/db/driver/clock";
import { INSERT_ROWS, isStored } from "@/lib/db/queries/events";
import { isUniqueViolation, UNREACHABLE_BACKOFF, waitsForDatabase } from "@/lib/db/driver/sql";
import { retry } from "@/lib/platform/retry";
import { eventWriter, RunTakenOverError } from "./event-writer";
import { packEvents, type EventRow } from "@/lib/db/queries/event-packing";
import type { AgentEvent, LoggedEvent, SequencedEvent } from "@/lib/contract/events";
import { MAX_EVENT_ID } from "@/lib/contract/log";

type Listener = (event: SequencedEvent) => void;

/** A run's events wait this long to be packed together; the process's writer then gathers every run's (event-writer.ts). */
const FLUSH_DELAY_MS = 2;
const FLUSH_BATCH = 500;
/**
 * One more than the live pool's connections: a blip can leave every idle one silent for good, and each attempt
 * that times out on one drops it from the pool, so the last attempt gets a new connection.
 */
const WRITE_ATTEMPTS = config.liveDatabasePool + 1;

/**
 * The live side of one run's event log: `emit` numbers an event, hands it to every subscriber at once and queues it
 * for batched writes, so streaming never waits on one (docs/architecture.md, "Events"). Closed, it drops late events.
 */
export class RunChannel {
  readonly events: SequencedEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly endListeners = new Set<(left: boolean) => void>();
  private unwritten: SequencedEvent[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private draining = false;
  private ended = false;
  /**
   * How the log was closed to new events: the run ended (`end`: a later event is late, and logged), or it stops
   * here (`stop`: what it emitted is stored) or left (`discard`: what is unstored is dropped), and later events
   * are the run's next instance's to emit.
   */
  private closedBy?: "end" | "stop" | "discard";
  private refusedLate = false;
  /**
   * Unknown until `begin`: the run claims its conversation before it reads where the log ends. Till then, the
   * largest seq a stored event can have, so that readers take every stored one.
   */
  private nextSeq = MAX_EVENT_ID;
  /** The seq of the last event stored: events after it were shown (maybe) but are not in the database yet. */
  private stored = 0;
  /** A batch could not be stored: none after it is, so that the log ends there instead of having a gap. */
  private writesFailed = false;

  constructor(
    readonly conversationId: string,
    readonly runId: string,
    /** The run's lease; none for a channel of no run's (a test's, on SQLite, which has one writer and no fence). */
    private readonly lease: {
      /** The run's claim (lib/db/queries/runs.ts): its events are stored only while the run's row has it. */
      claim: string;
      /**
       * The database refused the run's events: the run was taken over (its lease lost before this instance
       * noticed). The channel is discarded; the run must stop here and write nothing more.
       */
      onTakenOver: () => void;
    } = { claim: "", onTakenOver: () => {} },
  ) {}

  begin(firstSeq: number): void {
    this.nextSeq = firstSeq;
    this.stored = firstSeq - 1;
  }

  /** The seq of the last event stored: a follower that was sent no later one missed nothing if the run moves on. */
  get storedThrough(): number {
    return this.stored;
  }

  /** The seq of this run's first event: everything before it is in the database. */
  get firstSeq(): number {
    return this.events[0]?.seq ?? this.nextSeq;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  emit(event: AgentEvent): void {
    if (this.closedBy) return this.refuse(event);
    const at = databaseClock.now().getTime();
    const sequenced = { seq: this.nextSeq++, event: { ...event, runId: this.runId, at } as LoggedEvent };
    this.events.push(sequenced);
    this.unwritten.push(sequenced);
    for (const listener of this.listeners) listener(sequenced);
    if (this.unwritten.length >= FLUSH_BATCH) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  private refuse(event: AgentEvent): void {
    if (this.refusedLate || this.closedBy !== "end") return;
    this.refusedLate = true;
    console.error(`Run ${this.runId} emitted a ${event.type} event after it ended; late events are dropped.`);
  }

  /**
   * Resolves once every event emitted so far is stored (without waiting to pack more); rejects when they never will
   * be: a batch could not be stored, or the run left this instance.
   */
  async allStored(): Promise<void> {
    const last = this.nextSeq - 1;
    this.flush();
    await this.writing;
    if (this.stored < last) throw new Error(`The events of run ${this.runId} up to ${last} could not be stored.`);
  }

  /**
   * Follow the run: the events so far with seq > after, then `onEvent` for each new one, and `onEnd` once the run has
   * ended with its events stored, or, with `left`, once it left this instance (its unstored events are not the log's).
   */
  subscribe(
    after: number,
    onEvent: Listener,
    onEnd: (left: boolean) => void,
  ): { backlog: SequencedEvent[]; unsubscribe: () => void } {
    const backlog = this.events.filter((event) => event.seq > after);
    if (this.ended) {
      queueMicrotask(() => onEnd(this.closedBy === "discard"));
      return { backlog, unsubscribe: () => {} };
    }
    this.listeners.add(onEvent);
    this.endListeners.add(onEnd);
    return {
      backlog,
      unsubscribe: () => {
        this.listeners.delete(onEvent);
        this.endListeners.delete(onEnd);
      },
    };
  }

  /** Close the log, store what is left, then tell followers the run is over. */
  async end(): Promise<void> {
    this.closedBy ??= "end";
    this.flush();
    await this.writing;
    this.close();
  }

  /**
   * Close the log and store what is left, without a word about events emitted later: the run stops here (its
   * instance is stopping) and the instance that takes it over numbers its events after the stored ones.
   */
  stop(): Promise<void> {
    this.closedBy = "stop";
    return this.end();
  }

  /**
   * Close the log without storing what is left: another instance has taken the run over and numbers the events
   * after the stored ones itself. Followers here end, and find the rest where it is stored.
   */
  discard(): void {
    this.closedBy = "discard";
    clearTimeout(this.flushTimer);
    this.unwritten = [];
    this.close();
  }

  private close(): void {
    this.ended = true;
    for (const onEnd of this.endListeners) onEnd(this.closedBy === "discard");
    this.listeners.clear();
    this.endListeners.clear();
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.draining || this.unwritten.length === 0) return;
    this.writing = this.drain();
  }

  /** Store what is unwritten, one batch at a time: events emitted during a write go, packed, into the next. */
  private async drain(): Promise<void> {
    this.draining = true;
    while (this.unwritten.length > 0) {
      // At most one statement's rows (a batch is stored or refused whole), however many gathered during a slow write.
      const batch = this.unwritten.splice(0, INSERT_ROWS);
      await this.write(batch);
    }
    this.draining = false;
  }

  private async write(batch: SequencedEvent[]): Promise<void> {
    if (this.writesFailed) return;
    const rows = packEvents(batch);
    const waitUntil = performance.now() + config.leaseMs;
    try {
      await retry(() => this.store(rows, batch.at(-1)!.seq), {
        backoff: UNREACHABLE_BACKOFF,
        // Any failure, WRITE_ATTEMPTS times; a database that cannot be reached (a restart, a partition) is waited for
        // as long as the run's lease: past it another instance may have taken the run over, and refuses these writes
        // (a running run is stopped by then, claims.ts `fence`).
        retryable: (error, failures) => failures < WRITE_ATTEMPTS || waitsForDatabase(error, waitUntil),
      });
    } catch (error) {
      console.error(
        `Could not store ${batch.length} events of run ${this.runId}, nor will its later ones be (its log ends at ${this.stored}):`,
        error,
      );
      this.writesFailed = true;
    }
  }

  /** One attempt at storing a batch's `rows`, whose last seq is `lastSeq`; fails when another one may store them. */
  private async store(rows: EventRow[], lastSeq: number): Promise<void> {
    try {
      await eventWriter.write({
        conversationId: this.conversationId,
        runId: this.runId,
        claim: this.lease.claim,
        rows,
      });
    } catch (error) {
      if (error instanceof RunTakenOverError) {
        this.discard();
        return this.lease.onTakenOver();
      }
      // Discarded meanwhile: these seqs are another instance's to use now.
      if (this.closedBy === "discard") return;
      // Stored already by a statement whose answer never came (an earlier attempt, or the writer's batch before it
      // stored this run's rows alone): while the run has its claim, no one else writes its seqs. One statement
      // stores all of a batch or nothing, so its last row tells.
      if (!isUniqueViolation(error) || !(await isStored(this.conversationId, rows.at(-1)!).catch(() => false)))
        throw error;
    }
    this.stored = lastSeq;
  }
}
