import type { AgentEvent, LoggedEvent, Plan, RunStatus } from "@/lib/contract/events";

/** How far a run got, read from its stored events: where a run taken over goes on, or how it ends. */
export interface RunProgress {
  /** Steps with a step_finished. */
  finishedSteps: number;
  /** The step it was in. */
  step: number;
  /** A tool call of the unfinished step had started: its effects are unknown. */
  toolsStarted: boolean;
  /** The text of the last finished step, when it called no tool: the model had answered, and the run completed. */
  answer?: string;
  finished?: { status: RunStatus; steps: number };
  /** The run plans first (its run_started said so). */
  planFirst: boolean;
  /** Its plan as its finished steps left it: an unfinished step's changes are made again. */
  plan?: Plan;
}

/** How far a run got, from its stored events. */
export function progressOf(events: LoggedEvent[]): RunProgress {
  const progress: RunProgress = { finishedSteps: 0, step: 0, toolsStarted: false, planFirst: false };
  let text = "";
  let calledTools = false;
  let stepPlan: Plan | undefined;
  for (const event of events as AgentEvent[]) {
    if (event.type === "run_started") progress.planFirst = event.plan === true;
    else if (event.type === "plan_created" || event.type === "plan_updated") stepPlan = event.plan;
    else if (event.type === "step_started") {
      Object.assign(progress, { step: event.step, toolsStarted: false, answer: undefined });
      [text, calledTools, stepPlan] = ["", false, undefined];
    } else if (event.type === "text_delta" && event.step === progress.step) text += event.delta;
    else if (event.type === "step_finished")
      // Its calls have ended: their results are stored, before this.
      Object.assign(progress, {
        finishedSteps: event.step,
        toolsStarted: false,
        answer: calledTools ? undefined : text,
        plan: stepPlan ?? progress.plan,
      });
    else if (event.type === "tool_call") {
      calledTools = true;
      if (event.step > progress.finishedSteps) progress.toolsStarted = true;
    } else if (event.type === "run_finished") progress.finished = { status: event.status, steps: event.steps };
  }
  return progress;
}
