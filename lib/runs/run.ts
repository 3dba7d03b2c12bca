import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { conversationHistory } from "@/lib/agent/history";
import { runAgent, type AgentOutcome } from "@/lib/agent/loop";
import { RunPlan } from "@/lib/agent/plan";
import { openModel } from "@/lib/agent/model";
import { databaseClock } from "@/lib/db/driver/clock";
import { storeWhileUnreachable } from "@/lib/db/driver/sql";
import { updateConversation } from "@/lib/db/queries/conversations";
import { lastEventSeq, lastStoredEvent, listEvents } from "@/lib/db/queries/events";
import { createMessage, listMessages } from "@/lib/db/queries/messages";
import { attachFiles, listFiles } from "@/lib/db/queries/files";
import { attachmentsForModel } from "@/lib/files/for-model";
import { endClaimOfFinishedRun, finishRun, runningRun, type AbandonedRun } from "@/lib/db/queries/runs";
import { RunChannel } from "@/lib/events/channel";
import { reviewIdOf, type ReviewEvent } from "@/lib/contract/events";
import { processWide } from "@/lib/platform/process-wide";
import { config, modelConfig } from "@/lib/settings/config";
import { findProfile, type AgentProfile } from "@/lib/settings/profiles";
import { loadToolset } from "@/lib/tools/toolset";
import { RunClaims } from "./claims";
import { progressOf, type RunProgress } from "./progress";
import { RUN_FINISHING_MS, runAwaitingItsEnd } from "@/lib/events/run-end";
import { titleFrom } from "./title";

/** Told of each run whose end is stored, on the instance that stored it; whatever copy of this module ran it. */
type FinishedRunListener = (conversationId: string, runId: string) => void;
const finishedRunListeners = processWide("finishedRunListeners", () => new Set<FinishedRunListener>());

/**
 * Call `listener` once each run's end is stored, its events readable: start-up hands finished runs to the
 * OpenTelemetry export this way (instrumentation-node.ts), so that runs need not know who reads them after.
 */
export function onRunFinished(listener: FinishedRunListener): void {
  finishedRunListeners.add(listener);
}

export class RunConflictError extends Error {}

const TAKEN_OVER = "it was taken over";
/** A message sent right after Stop waits this long for the stopped run to wind down, instead of a 409. */
const CANCELLED_RUN_GRACE_MS = 2_000;
/** How often a new run reads whether the previous one has stored its end (awaitLogEnd). */
const LOG_END_POLL_MS = 25;

const claims = processWide("runClaims", () => new RunClaims<Run>());

/** The run this instance executes for a conversation, if any (another instance may execute it: see remote.ts). */
export function activeRun(conversationId: string): Run | undefined {
  return claims.holder(conversationId);
}

/** Start this instance's share of the runs: heartbeats, and taking over the runs of instances that died. */
export function startRunLeases(): Promise<void> {
  return claims.start((abandoned, leasedAt, claim) => Run.resume(abandoned, leasedAt, claim));
}

/** For a graceful stop of this instance: its runs, with every event they emitted stored, go to another one (claims.ts). */
export function handOverRuns(): Promise<void> {
  return claims.handOver();
}

/**
 * One run of the agent, from claim to release: `start`, the loop, cancel (`cancel`, from any instance through
 * remote.ts), `finish`, and `resume` / `suspend` for takeover and hand-over (docs/architecture.md, "A run's life").
 */
export class Run {
  readonly channel: RunChannel;
  private readonly controller = new AbortController();
  private execution: Promise<void> = Promise.resolve();
  /** Until the run has stored its user's message and begun (`open`): a hand-over waits for it. */
  private starting: Promise<void> = Promise.resolve();
  /** Calls waiting for a person's answer, by approval id. */
  private readonly approvals = new Map<string, (approved: boolean) => void>();
  /** The answers taken, by approval id. */
  private readonly answeredApprovals = new Map<string, boolean>();
  /**
   * Why nothing more is written from here: another instance took the run over or may (`abandon`: what is unwritten
   * is dropped), or this instance is stopping (`suspend`: what the run emitted is being stored, nothing after it).
   */
  private leaving?: "abandoned" | "suspended";
  private finishing = false;
  /** From its run_started or run_resumed on, until it finishes: a review written meanwhile goes into its log. */
  private reviewable = false;
  /** The reviews it wrote into its log, by id: a review sent again (from another instance) is written once. */
  private readonly reviewsWritten = new Set<string>();
  /** The token of the segment of the log this instance writes for the run (lib/contract/events.ts startsSegment). */
  private readonly segment = randomUUID();

  private constructor(
    readonly conversationId: string,
    private readonly ownerId: string,
    private readonly profile: AgentProfile,
    readonly id: string = randomUUID(),
    /** This claim of the run: its writes are stored only while the run's row has it (lib/db/queries/runs.ts). */
    readonly claim: string = randomUUID(),
  ) {
    this.channel = new RunChannel(conversationId, this.id, { claim, onTakenOver: () => claims.takenOver(this) });
  }

  /**
   * Start a run for a new user message and return it at once; it goes on in the background whether or not anyone
   * is listening, and persists everything it does. Throws RunConflictError while another run holds the
   * conversation.
   */
  static async start(
    conversation: { id: string; title: string; profile: string | null },
    ownerId: string,
    content: string,
    { fileIds = [], plan }: { fileIds?: string[]; plan?: boolean } = {},
  ): Promise<Run> {
    const run = new Run(conversation.id, ownerId, profileOf(conversation.profile));
    await run.claimConversation();
    run.starting = run.open(conversation, content, fileIds, plan ?? run.profile.planner);
    await run.starting;
    return run;
  }

  /** After the claim: the log's next seq, the user's message, then the loop, in the background. */
  private async open(
    conversation: { id: string; title: string },
    content: string,
    fileIds: string[],
    planFirst: boolean,
  ): Promise<void> {
    try {
      this.channel.begin((await awaitLogEnd(conversation.id)) + 1);
      const message = await createMessage({ conversationId: conversation.id, runId: this.id, role: "user", content });
      await attachFiles(conversation.id, message.id, fileIds);
      if (conversation.title === "New chat") await updateConversation(conversation.id, { title: titleFrom(content) });
      this.execution = this.execute({ userMessageId: message.id, planFirst });
    } catch (error) {
      await finishRun(this.id, "error", 0, this.claim).catch(() => {});
      // Followers that came meanwhile end, and find the log as it is stored.
      this.channel.discard();
      claims.release(this);
      throw error;
    }
  }

  /**
   * Go on with a run whose instance died, as its stored events decide: close its row, end it, or resume the loop after
   * its last finished step; its events continue after the last stored one (docs/architecture.md, "Takeover").
   */
  static async resume(abandoned: AbandonedRun, leasedAt: number, claim: string): Promise<void> {
    const run = new Run(
      abandoned.conversationId,
      abandoned.conversation.ownerId,
      profileOf(abandoned.conversation.profile),
      abandoned.id,
      claim,
    );
    claims.adopt(run, leasedAt);
    try {
      const stored = await listEvents(abandoned.conversationId);
      run.channel.begin((stored.at(-1)?.seq ?? 0) + 1);
      const progress = progressOf(stored.filter(({ event }) => event.runId === abandoned.id).map(({ event }) => event));
      if (progress.finished) {
        await finishRun(run.id, progress.finished.status, progress.finished.steps, claim);
        run.channel.discard();
        claims.release(run);
        return;
      }
      if (abandoned.cancelRequested) run.cancel();
      run.execution = run.execute({ resumeAfter: progress });
    } catch (error) {
      console.error(`Could not take over run ${abandoned.id}:`, error);
      run.channel.discard();
      claims.release(run);
    }
  }

  /** Settles when the run has finished and released its conversation; never rejects. */
  get done(): Promise<void> {
    return this.execution;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  cancel(): void {
    this.controller.abort(new Error("The run was cancelled."));
  }

  /**
   * The lease is lost, or about to be (claims.ts): the run stops at once, and what it has not stored is dropped.
   * False, and nothing changes, once the run is finishing (it stores its end, under its claim) or has left.
   */
  abandon(why: string): boolean {
    if (this.finishing || this.leaving) return false;
    this.leave(why);
    return true;
  }

  /** Another claim has the run's row (claims.ts): it stops at once, even while storing its end, which is refused. */
  takenOver(): void {
    this.leave(TAKEN_OVER);
  }

  /**
   * Stop here and write nothing more: what is unstored is dropped, and the run's followers here end now. Once only:
   * the channel may have been discarded already (it discards itself when its events are refused).
   */
  private leave(why: string): void {
    if (this.leaving) return;
    console.error(`Run ${this.id} stops here without writing more: ${why}.`);
    this.leaving = "abandoned";
    // They find what comes next where it is stored.
    this.channel.discard();
    this.cancel();
  }

  /**
   * This instance is stopping (claims.handOver): the events emitted so far are stored, then the run stops here and
   * writes nothing more; the instance that takes it over goes on after them.
   */
  async suspend(): Promise<void> {
    // A run that failed to start has nothing to hand over.
    if (
      !(await this.starting.then(
        () => true,
        () => false,
      ))
    )
      return;
    if (this.finishing || this.leaving) return this.execution;
    this.leaving = "suspended";
    // Closed to new events before the cancel, whose own events (a denied approval, a cancelled call) are not true.
    const stored = this.channel.stop();
    this.cancel();
    await stored;
  }

  /**
   * The owner's answer to a call waiting for approval. True when taken, or when it is the answer taken before (sent
   * again, after a lost response or a 503); false when no call waits under that id.
   */
  resolveApproval(approvalId: string, approved: boolean): boolean {
    const answer = this.approvals.get(approvalId);
    if (!answer) return this.answeredApprovals.get(approvalId) === approved;
    answer(approved);
    return true;
  }

  /**
   * A review written while the run runs goes into the log through its channel, in order with its events (lib/review/
   * log.ts). False when the run cannot take it (it has not begun, it is finishing or leaving): it is written into the
   * log once the run has ended.
   */
  acceptReview(event: ReviewEvent): boolean {
    if (!this.reviewable || this.finishing || this.leaving) return false;
    const reviewId = reviewIdOf(event);
    if (!this.reviewsWritten.has(reviewId)) {
      this.reviewsWritten.add(reviewId);
      this.channel.emit(event);
    }
    return true;
  }

  /** Pause a call until its owner approves or denies it (POST .../approvals/{id}); a cancel denies it. */
  private requestApproval(step: number, callId: string, tool: string, input: unknown): Promise<boolean> {
    const approvalId = randomUUID();
    const { signal } = this.controller;
    return new Promise((resolve, reject) => {
      const answer = (approved: boolean) => {
        this.approvals.delete(approvalId);
        this.answeredApprovals.set(approvalId, approved);
        signal.removeEventListener("abort", deny);
        this.channel.emit({ type: "approval_resolved", step, callId, approvalId, approved });
        resolve(approved);
      };
      // A run leaving this instance leaves the question open: no one denied the call (nothing is audited), and the
      // instance that takes the run over ends its step (the call's effect is unknown to it). The call here ends.
      const deny = () => {
        if (!this.leaving) return answer(false);
        this.approvals.delete(approvalId);
        reject(signal.reason);
      };
      this.approvals.set(approvalId, answer);
      signal.addEventListener("abort", deny, { once: true });
      this.channel.emit({ type: "approval_requested", step, callId, approvalId, tool, input });
    });
  }

  private async claimConversation(): Promise<void> {
    const model = modelConfig()?.model ?? "none";
    if (await claims.claim(this, model)) return;
    // Stop, then send at once: the stopped run, here or on another instance, is only settling its last writes.
    const deadline = performance.now() + CANCELLED_RUN_GRACE_MS;
    const holder = claims.holder(this.conversationId);
    if (holder?.cancelled)
      await Promise.race([holder.done, new Promise((resolve) => setTimeout(resolve, CANCELLED_RUN_GRACE_MS))]);
    else
      while ((await runningRun(this.conversationId))?.cancelRequested && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    if (!(await claims.claim(this, model))) throw new RunConflictError("Another run of this conversation is active.");
  }

  private async execute(
    start: { userMessageId: string; planFirst: boolean } | { resumeAfter: RunProgress },
  ): Promise<void> {
    const model = modelConfig();
    const emit = this.channel.emit.bind(this.channel);
    const resumed = "resumeAfter" in start ? start.resumeAfter : undefined;
    let outcome: AgentOutcome = { status: "error", steps: resumed?.step ?? 0, answer: "" };
    try {
      if ("userMessageId" in start) {
        emit({
          type: "run_started",
          messageId: start.userMessageId,
          model: model?.model ?? "none",
          profile: this.profile.name,
          ...(start.planFirst && { plan: true }),
          segment: this.segment,
        });
        this.reviewable = true;
      } else {
        // Every segment of the log begins with its token, this one too when it only ends the run.
        const { finishedSteps: after, step, toolsStarted, answer } = start.resumeAfter;
        emit({
          type: "run_resumed",
          step: after,
          message:
            answer !== undefined
              ? "The server running this run stopped as it stored the answer; another one took it over to end it."
              : toolsStarted
                ? `The server running this run stopped during step ${step}; another one took it over to end it.`
                : `The server running this run stopped; another one took it over and goes on after step ${after}.`,
          segment: this.segment,
        });
        this.reviewable = true;
        if (answer !== undefined) return await this.finish({ status: "completed", steps: after, answer });
        if (toolsStarted) {
          emit({
            type: "error",
            code: "instance_lost",
            message: `The server running this run stopped while the tool calls of step ${step} ran; what they did is unknown, so the run ends here.`,
          });
          return await this.finish(outcome);
        }
      }
      const said = listMessages(this.conversationId);
      const [tools, messages] = await Promise.all([
        // The library tools offered are those that fit the person's message of this run.
        said.then((rows) => {
          const request = rows.findLast((row) => row.runId === this.id && row.role === "user")?.content ?? "";
          return loadToolset(this.conversationId, this.ownerId, this.profile, request);
        }),
        Promise.all([said, listEvents(this.conversationId), listFiles(this.conversationId)]).then(
          async ([rows, events, files]) =>
            conversationHistory(rows, events, resumed && this.id, await attachmentsForModel(files)),
        ),
      ]);
      outcome = await runAgent({
        model: model && openModel(model, config.modelIdleTimeoutMs),
        tools,
        messages,
        caller: { ownerId: this.ownerId, conversationId: this.conversationId, runId: this.id },
        maxSteps: config.maxSteps,
        emit,
        now: () => databaseClock.now().getTime(),
        stored: () => this.channel.allStored(),
        signal: this.controller.signal,
        requestApproval: (step, callId, tool, input) => this.requestApproval(step, callId, tool, input),
        resumeAfterStep: resumed?.finishedSteps,
        plan:
          "resumeAfter" in start
            ? new RunPlan(start.resumeAfter.planFirst, start.resumeAfter.plan)
            : new RunPlan(start.planFirst),
      });
    } catch (error) {
      console.error(`Run ${this.id} failed:`, error);
      emit({ type: "error", code: "internal_error", message: "The run failed on the server; the error was logged." });
    }
    await this.finish(outcome);
  }

  private async finish({ status, steps, answer }: AgentOutcome): Promise<void> {
    this.finishing = true;
    if (this.leaving) {
      claims.release(this);
      return;
    }
    try {
      // Refused: the run was taken over since (another instance, or this one again, goes on with it).
      if (!(await this.storeOutcome({ status, steps, answer }))) return this.takenOver();
      this.channel.emit({ type: "run_finished", status, steps });
      await this.channel.end();
      for (const listener of finishedRunListeners) listener(this.conversationId, this.id);
    } catch (error) {
      console.error(`Run ${this.id} could not close its event log:`, error);
    } finally {
      claims.release(this);
    }
  }

  /**
   * The outcome, then the answer, stored before run_finished announces them; false, storing nothing, when the row has
   * another claim. Sent again while the database cannot be reached, for a lease; a failure is logged, and the run ends.
   */
  private async storeOutcome({ status, steps, answer }: AgentOutcome): Promise<boolean> {
    const deadline = performance.now() + config.leaseMs;
    // The same row and message at every attempt (one whose answer was lost may have stored them), dated as the run
    // finishes: before the next turn's, should that turn begin while the database is still out of reach (`awaitLogEnd`).
    const finishedAt = databaseClock.now();
    const message = answer && {
      id: randomUUID(),
      createdAt: finishedAt,
      conversationId: this.conversationId,
      runId: this.id,
      role: "assistant" as const,
      content: answer,
    };
    try {
      if (!(await storeWhileUnreachable(() => finishRun(this.id, status, steps, this.claim, finishedAt), deadline)))
        return false;
      if (message) await storeWhileUnreachable(() => createMessage(message), deadline);
    } catch (error) {
      console.error(`Could not store the outcome of run ${this.id}:`, error);
    }
    return true;
  }
}

/**
 * Where the log ends, after the previous run's run_finished, which it may still be storing; waited for a while, then
 * its claim is ended so that a late write of it is refused (docs/architecture.md, "Start"). Where a new run's events
 * begin, and where a review written while no run runs goes (lib/review/log.ts).
 */
export async function awaitLogEnd(conversationId: string): Promise<number> {
  const deadline = performance.now() + RUN_FINISHING_MS;
  for (;;) {
    const last = await lastStoredEvent(conversationId);
    if (!last || last.type === "run_finished" || last.finishedAt === null) return last?.lastSeq ?? 0;
    if (!runAwaitingItsEnd(last, databaseClock.now()) || performance.now() > deadline) {
      await endClaimOfFinishedRun(last.runId);
      return lastEventSeq(conversationId);
    }
    await sleep(LOG_END_POLL_MS);
  }
}

/** A profile removed from the file since the conversation chose it: its runs fall back to the default one. */
const profileOf = (name: string | null): AgentProfile => findProfile(name) ?? findProfile(null)!;
