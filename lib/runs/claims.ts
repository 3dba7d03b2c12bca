/**
 * Which run holds each conversation, across every instance: a running Run row, leased to the instance that executes it
 * and renewed by its heartbeat; past its lease, any instance takes the run over (docs/architecture.md, "Leases").
 */
import os from "node:os";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { config } from "@/lib/settings/config";
import { dropIdleConnectionsAfterHang, provider } from "@/lib/db/driver/client";
import { databaseClock } from "@/lib/db/driver/clock";
import { notifications, type RunMessage } from "@/lib/db/driver/notifications";
import type { ReviewEvent } from "@/lib/contract/events";
import {
  abandonedRuns,
  claimRun,
  finishRun,
  heldClaims,
  releaseLeases,
  renewLeases,
  takeOverRun,
  type AbandonedRun,
} from "@/lib/db/queries/runs";

/**
 * Resume a run this instance has taken over under `claim`, whose lease it set at `leasedAt` (`performance.now()`);
 * it must `adopt` the run.
 */
type TakeOver = (run: AbandonedRun, leasedAt: number, claim: string) => Promise<void>;

/** What the claims need of a run this instance executes. */
export interface LeasedRun {
  readonly id: string;
  readonly conversationId: string;
  /** This claim of the run (lib/db/queries/runs.ts): a takeover makes a new one. */
  readonly claim: string;
  cancel(): void;
  /**
   * The lease was lost, or may be (another instance has or may take the run): stop at once and write nothing more.
   * False when the run is finishing on its own (it stores its end, under its claim), or has left already.
   */
  abandon(why: string): boolean;
  /** Another claim has the run's row: stop at once and write nothing more, even while storing its end (refused). */
  takenOver(): void;
  /** This instance is stopping: store what the run emitted, then stop it and write nothing more. */
  suspend(): Promise<void>;
  /** Settles when the run has ended here, whichever way. */
  readonly done: Promise<void>;
  resolveApproval(approvalId: string, approved: boolean): boolean;
  /** Write a review into the run's log (lib/review/log.ts); false when the run cannot now. */
  acceptReview(event: ReviewEvent): boolean;
}

/**
 * The heartbeat's period: a fifth of the lease, at most a second, so that a takeover comes within the lease plus a
 * second, and a run is fenced (see `fence`) only after two heartbeats in a row failed or hung.
 */
const tickMs = () => Math.min(1_000, Math.floor(config.leaseMs / 5));
/** A run whose lease has not been renewed is stopped this long before the lease runs out: two heartbeats' worth. */
const fenceMarginMs = () => 2 * tickMs();

export class RunClaims<Run extends LeasedRun> {
  readonly instanceId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  /** The runs this instance executes, by conversation. */
  private readonly local = new Map<string, Run>();
  /**
   * When each local run's lease was last set, by its claim, its takeover or a heartbeat (the time the statement was
   * sent, on the monotonic clock: a step of the system's clock moves no lease): it runs out a lease after that.
   */
  private readonly leasedAt = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  /** Checks the local runs' leases twice a tick (`fence`). */
  private fenceTimer?: NodeJS.Timeout;
  /** The heartbeat in progress, which a hand-over waits for (two periods at most: see `start`). */
  private ticking: Promise<void> = Promise.resolve();
  /** Taking abandoned runs over, at start-up or from a tick. */
  private takingOver?: Promise<void>;
  private takeOver?: TakeOver;
  /** Handing its runs over (handOver): this instance claims and takes over no run any more. */
  private stopping = false;

  /** Take the conversation for `run`; false when a run of it is running, here or on another instance. */
  async claim(run: Run, model: string): Promise<boolean> {
    if (this.stopping || this.local.has(run.conversationId)) return false;
    const sent = performance.now();
    if (
      !(await claimRun({
        id: run.id,
        conversationId: run.conversationId,
        model,
        instanceId: this.instanceId,
        claim: run.claim,
        leaseUntil: this.leaseFrom(sent),
      }))
    ) {
      return false;
    }
    if (this.stopping) {
      // Claimed while the instance began to stop, too late to be handed over: the run never starts.
      await finishRun(run.id, "cancelled", 0, run.claim);
      return false;
    }
    this.local.set(run.conversationId, run);
    this.leasedAt.set(run.id, sent);
    return true;
  }

  /** Execute a run this instance has taken over: the database claim moved to it already, leased at `leasedAt`. */
  adopt(run: Run, leasedAt: number): void {
    this.local.set(run.conversationId, run);
    this.leasedAt.set(run.id, leasedAt);
  }

  /** Let go of the conversation here; the database claim ends when the run's row is finished. */
  release(run: Run): void {
    if (this.local.get(run.conversationId) !== run) return;
    this.local.delete(run.conversationId);
    this.leasedAt.delete(run.id);
  }

  /** The run this instance executes for the conversation, if any. */
  holder(conversationId: string): Run | undefined {
    return this.local.get(conversationId);
  }

  /**
   * Keep this instance's leases and watch the others': renew every tick, hand Stop and approvals asked for on
   * other instances to the local run, and take over runs whose lease ran out. `takeOver` gets each one won.
   */
  async start(takeOver: TakeOver): Promise<void> {
    if (this.takeOver) return;
    this.takeOver = takeOver;
    notifications.subscribe("runs", (payload) => this.deliver(JSON.parse(payload) as RunMessage));
    await notifications.ready();
    await databaseClock.read();
    // PostgreSQL only: with SQLite no other process can take a run over.
    if (provider === "postgresql") {
      this.fenceTimer = setInterval(() => this.fence(), tickMs() / 2);
      this.fenceTimer.unref();
    }
    // A period at most for each part: a hung renewal drops the idle connections and ticks again at once, so that
    // silent connections cost a period, not one each (docs/architecture.md, "Leases, the heartbeat and the fence").
    const withinTick = <T>(work: Promise<T>) => Promise.race([work, sleep(tickMs(), "hung" as const, { ref: false })]);
    const tick = async (): Promise<number> => {
      const renewal = await withinTick(
        this.heartbeat().then(
          () => "renewed" as const,
          (error) => (console.error("The run lease heartbeat failed:", error), "failed" as const),
        ),
      );
      if (renewal === "hung") return dropIdleConnectionsAfterHang() ? 0 : tickMs();
      if (renewal === "renewed") await withinTick(this.takeOverOnce(databaseClock.now()));
      return tickMs();
    };
    const schedule = (delayMs: number) => {
      if (this.stopping) return;
      this.timer = setTimeout(() => {
        this.ticking = tick()
          .catch((error) => (console.error("A run lease tick failed:", error), tickMs()))
          .then(schedule);
      }, delayMs);
      this.timer.unref();
    };
    schedule(tickMs());
    // With the heartbeat going: each run taken over here is renewed while the others are being taken, which for
    // hundreds of runs can take longer than a lease. SQLite: this is the only process, so every running run was its
    // predecessor's, whatever its lease says.
    await this.takeOverOnce(provider === "sqlite" ? null : databaseClock.now());
  }

  /** Take abandoned runs over (see `takeOverAbandoned`), unless that is under way: then wait for it. Never rejects. */
  private takeOverOnce(now: Date | null): Promise<void> {
    return (this.takingOver ??= this.takeOverAbandoned(now)
      .catch((error) => console.error("Could not take over abandoned runs:", error))
      .finally(() => (this.takingOver = undefined)));
  }

  /**
   * For a graceful stop (SIGTERM): every run here stores what it emitted and stops, its lease is given up, and the
   * other instances are told to take the runs over now (with SQLite, the next start does). Nothing a client was
   * shown is lost, and the run goes on from its last finished step without waiting for its lease to run out.
   */
  async handOver(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    clearInterval(this.fenceTimer);
    await this.ticking;
    const runs = [...this.local.values()];
    this.local.clear();
    this.leasedAt.clear();
    // A full lease for the hand-over itself, which the heartbeat no longer renews.
    const { held } = await renewLeases(
      this.instanceId,
      runs.map((run) => run.id),
      this.leaseFrom(performance.now()),
    );
    // A run that is storing its end here does so before the instance exits.
    const finishing = await this.letGo(runs.filter((run) => !held.includes(run.id)));
    await Promise.all([
      ...finishing.map((run) => run.done),
      ...runs
        .filter((run) => held.includes(run.id))
        .map(async (run) => {
          await run.suspend();
          await releaseLeases(this.instanceId, [run.id]);
        }),
    ]);
    if (held.length > 0) await notifications.publish("runs", JSON.stringify({ kind: "released" } satisfies RunMessage));
  }

  /**
   * The end of a lease set at `sentMs` (`performance.now()`), on the database's clock: the other instances compare it
   * with their own reading of that clock.
   */
  private leaseFrom(sentMs: number): Date {
    return databaseClock.at(sentMs + config.leaseMs);
  }

  private deliver(message: RunMessage): void {
    if (this.stopping) return;
    if (message.kind === "released") {
      this.takeOverAbandoned(databaseClock.now()).catch((error) =>
        console.error("Could not take over released runs:", error),
      );
      return;
    }
    const run = [...this.local.values()].find((candidate) => candidate.id === message.runId);
    if (!run) return;
    if (message.kind === "cancel") run.cancel();
    else if (message.kind === "review") run.acceptReview(message.event);
    else run.resolveApproval(message.approvalId, message.approved);
  }

  private async heartbeat(): Promise<void> {
    databaseClock.refresh();
    const sent = performance.now();
    const runs = [...this.local.values()];
    const { held, cancelRequested } = await renewLeases(
      this.instanceId,
      runs.map((run) => run.id),
      this.leaseFrom(sent),
    );
    const current = runs.filter((run) => this.local.get(run.conversationId) === run);
    for (const run of current.filter((run) => held.includes(run.id))) {
      // A late answer to an earlier heartbeat says nothing newer.
      this.leasedAt.set(run.id, Math.max(this.leasedAt.get(run.id) ?? 0, sent));
      if (cancelRequested.includes(run.id)) run.cancel();
    }
    await this.letGo(current.filter((run) => !held.includes(run.id)));
  }

  /**
   * Runs whose lease this instance no longer holds: taken over (another claim) stops at once; finished under its own
   * claim goes on storing its end, and is returned. When the database cannot say which, each is abandoned.
   */
  private async letGo(runs: Run[]): Promise<Run[]> {
    if (runs.length === 0) return [];
    let claimed: Set<string> | undefined;
    try {
      claimed = await heldClaims(runs.map((run) => run.claim));
    } catch (error) {
      console.error("Could not tell the runs taken over from the ones finishing:", error);
    }
    const finishing: Run[] = [];
    for (const run of runs) {
      if (claimed && !claimed.has(run.claim)) this.takenOver(run);
      else if (!this.abandon(run, "its lease is no longer held here")) finishing.push(run);
    }
    return finishing;
  }

  /**
   * Stop the local runs whose leases have not been renewed for almost a lease: others are about to take them over, and
   * stopped first, no run goes on in two places (docs/architecture.md, "Leases, the heartbeat and the fence").
   */
  private fence(): void {
    const unrenewedSince = performance.now() - config.leaseMs + fenceMarginMs();
    const expiring = [...this.local.values()].filter(
      (run) => (this.leasedAt.get(run.id) ?? -Infinity) <= unrenewedSince,
    );
    if (expiring.length > 0)
      console.error(
        `${expiring.length} run leases could not be renewed for ${config.leaseMs - fenceMarginMs()} ms; this instance stops those runs.`,
      );
    for (const run of expiring) this.abandon(run, "its lease could not be renewed");
  }

  /**
   * The run stops here at once and writes nothing more; its conversation is free here (see `claim`). A run that is
   * finishing keeps it until it has stored its end, unless it was taken over (`letGo`): till then, this instance's
   * followers follow it here, since the store does not have its end yet. False when the run goes on.
   */
  private abandon(run: Run, why: string): boolean {
    if (!run.abandon(why)) return false;
    this.release(run);
    return true;
  }

  /** The run's row has another claim now: the run stops here at once, finishing or not, and leaves its conversation. */
  takenOver(run: Run): void {
    run.takenOver();
    this.release(run);
  }

  private async takeOverAbandoned(now: Date | null): Promise<void> {
    for (const run of await abandonedRuns(now)) {
      if (this.stopping) return;
      const sent = performance.now();
      const claim = randomUUID();
      if (!(await takeOverRun(run, this.instanceId, claim, this.leaseFrom(sent)))) continue;
      // Won as this instance began to stop: given up again at once, for another instance.
      if (this.stopping) {
        await releaseLeases(this.instanceId, [run.id]);
        continue;
      }
      await this.takeOver!(run, sent, claim);
    }
  }
}
