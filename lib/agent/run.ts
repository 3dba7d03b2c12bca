import { randomUUID } from "node:crypto";
import { modelConfig } from "@/lib/config";
import { updateConversation } from "@/lib/db/conversations";
import { findProfile, type AgentProfile } from "@/lib/profiles";
import { lastEventSeq } from "@/lib/db/events";
import { createMessage } from "@/lib/db/messages";
import { createRun, finishRun } from "@/lib/db/runs";
import { RunChannel } from "@/lib/events/channel";
import { InProcessClaims, type RunClaims } from "./claims";
import { runAgent, type AgentOutcome } from "./loop";

export class RunConflictError extends Error {}

const TITLE_CHARS = 60;
/** A message sent right after Stop waits this long for the stopped run to wind down, instead of a 409. */
const CANCELLED_RUN_GRACE_MS = 2_000;

// On globalThis so that dev-mode reloads keep one set of claims.
const globalClaims = globalThis as unknown as { toolsmithRunClaims?: RunClaims<Run> };
const claims = (globalClaims.toolsmithRunClaims ??= new InProcessClaims<Run>());

/** The run in progress for a conversation, if any. */
export function activeRun(conversationId: string): Run | undefined {
  return claims.holder(conversationId);
}

/**
 * One run of the agent, from claim to release. Its life, in order:
 *  1. start: claim the conversation (one run at a time), store the user's message, emit `run_started`;
 *  2. the loop (loop.ts) plans, acts and observes, streaming every step through the channel;
 *  3. cancel, at any time: aborts the signal that reaches the model request, every tool call, its sandbox thread
 *     and its fetches, and denies a call waiting for approval; the loop then ends with status `cancelled` once
 *     every call has settled;
 *  4. finish: store the answer and the outcome, emit `run_finished`, close the channel (nothing is emitted or
 *     stored after that), and release the conversation, whatever failed on the way.
 */
export class Run {
  readonly id = randomUUID();
  readonly channel: RunChannel;
  private readonly controller = new AbortController();
  private execution: Promise<void> = Promise.resolve();
  /** Calls waiting for a person's answer, by approval id. */
  private readonly approvals = new Map<string, (approved: boolean) => void>();

  private constructor(
    readonly conversationId: string,
    private readonly ownerId: string,
    private readonly profile: AgentProfile,
  ) {
    this.channel = new RunChannel(conversationId, this.id);
  }

  /**
   * Start a run for a new user message and return it at once; it goes on in the background whether or not anyone
   * is listening, and persists everything it does. Throws RunConflictError while another run holds the
   * conversation.
   */
  static async start(conversation: { id: string; title: string; profile: string | null }, ownerId: string, content: string): Promise<Run> {
    // A profile removed from the file since the conversation chose it: its runs fall back to the default one.
    const run = new Run(conversation.id, ownerId, findProfile(conversation.profile) ?? findProfile(null)!);
    await run.claim();
    try {
      run.channel.begin((await lastEventSeq(conversation.id)) + 1);
      await createRun({ id: run.id, conversationId: conversation.id, model: modelConfig()?.model ?? "none" });
      const message = await createMessage({ conversationId: conversation.id, runId: run.id, role: "user", content });
      if (conversation.title === "New chat") await updateConversation(conversation.id, { title: titleFrom(content) });
      run.execution = run.execute(message.id);
      return run;
    } catch (error) {
      claims.release(conversation.id, run);
      throw error;
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

  /** The owner's answer to a call waiting for approval; false when no call waits under that id (any more). */
  resolveApproval(approvalId: string, approved: boolean): boolean {
    const answer = this.approvals.get(approvalId);
    answer?.(approved);
    return answer !== undefined;
  }

  /** Pause a call until its owner approves or denies it (POST .../approvals/{id}); a cancel denies it. */
  private requestApproval(step: number, callId: string, tool: string, input: unknown): Promise<boolean> {
    const approvalId = randomUUID();
    const { signal } = this.controller;
    return new Promise((resolve) => {
      const answer = (approved: boolean) => {
        this.approvals.delete(approvalId);
        signal.removeEventListener("abort", deny);
        this.channel.emit({ type: "approval_resolved", step, callId, approvalId, approved });
        resolve(approved);
      };
      const deny = () => answer(false);
      this.approvals.set(approvalId, answer);
      signal.addEventListener("abort", deny, { once: true });
      this.channel.emit({ type: "approval_requested", step, callId, approvalId, tool, input });
    });
  }

  private async claim(): Promise<void> {
    if (claims.claim(this.conversationId, this)) return;
    // Stop, then send at once: the stopped run is only settling its last calls and writes.
    const holder = claims.holder(this.conversationId);
    if (holder?.cancelled) await Promise.race([holder.done, new Promise((resolve) => setTimeout(resolve, CANCELLED_RUN_GRACE_MS))]);
    if (!claims.claim(this.conversationId, this)) throw new RunConflictError("Another run of this conversation is active.");
  }

  private async execute(userMessageId: string): Promise<void> {
    const model = modelConfig();
    const emit = this.channel.emit.bind(this.channel);
    let outcome: AgentOutcome = { status: "error", steps: 0, answer: "" };
    try {
      emit({ type: "run_started", messageId: userMessageId, model: model?.model ?? "none", profile: this.profile.name });
      outcome = await runAgent({
        ownerId: this.ownerId,
        conversationId: this.conversationId,
        profile: this.profile,
        runId: this.id,
        model,
        emit,
        signal: this.controller.signal,
        requestApproval: (step, callId, tool, input) => this.requestApproval(step, callId, tool, input),
      });
    } catch (error) {
      console.error(`Run ${this.id} failed:`, error);
      emit({ type: "error", code: "internal_error", message: "The run failed on the server; the error was logged." });
    }
    await this.finish(outcome);
  }

  private async finish({ status, steps, answer }: AgentOutcome): Promise<void> {
    try {
      // Stored before it is announced, so a client that reloads on run_finished finds the answer and the outcome.
      await Promise.all([
        answer ? createMessage({ conversationId: this.conversationId, runId: this.id, role: "assistant", content: answer }) : undefined,
        finishRun(this.id, status, steps),
      ]).catch((error) => console.error(`Could not store the outcome of run ${this.id}:`, error));
      this.channel.emit({ type: "run_finished", status, steps });
      await this.channel.end();
    } catch (error) {
      console.error(`Run ${this.id} could not close its event log:`, error);
    } finally {
      claims.release(this.conversationId, this);
    }
  }
}

function titleFrom(content: string): string {
  const line = content.trim().split("\n")[0].replace(/\s+/g, " ");
  // Cut by code point, never inside a surrogate pair.
  const characters = [...line];
  return characters.length > TITLE_CHARS ? `${characters.slice(0, TITLE_CHARS - 1).join("")}…` : line || "New chat";
}
