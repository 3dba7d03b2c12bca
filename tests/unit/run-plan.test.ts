import { describe, expect, it } from "vitest";
import type { AgentEvent, LoggedEvent, Plan } from "@/lib/contract/events";
import { RunPlan } from "@/lib/agent/plan";
import { progressOf } from "@/lib/runs/progress";
import { PLAN_LIMITS } from "@/lib/settings/plan-limits";
import { applyEvents, emptyTrace, type TraceEvent } from "@/lib/trace/state";

const steps = (...titles: string[]) => ({ steps: titles.map((title) => ({ title })) });

/** A plan-first run's plan, made by a plan call in step 1. */
function planned(...titles: string[]): RunPlan {
  const plan = new RunPlan(true);
  const outcome = plan.call("plan", steps(...titles), 1, "c1");
  if (!outcome.ok) throw new Error(outcome.error);
  return plan;
}

function updated(plan: RunPlan, input: unknown, step = 2): Plan {
  const outcome = plan.call("update_plan", input, step, `c${step}`);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.event.plan;
}

describe("RunPlan: a plan-first run's plan", () => {
  it("offers plan alone until a plan is made, then update_plan; a run without plan first offers neither", () => {
    const plan = new RunPlan(true);
    expect(plan.planning).toBe(true);
    expect(Object.keys(plan.tools())).toEqual(["plan"]);
    expect(plan.handles("plan")).toBe(true);
    expect(plan.handles("update_plan")).toBe(false);

    const outcome = plan.call("plan", { steps: [{ title: " Read the CSV ", detail: "with pandas" }] }, 1, "c1");
    expect(outcome).toEqual({
      ok: true,
      output: { plan: [{ id: "p1", title: "Read the CSV", status: "pending" }] },
      event: {
        type: "plan_created",
        step: 1,
        callId: "c1",
        plan: { steps: [{ id: "p1", title: "Read the CSV", detail: "with pandas", status: "pending", step: 1 }] },
      },
    });
    expect(plan.planning).toBe(false);
    expect(Object.keys(plan.tools())).toEqual(["update_plan"]);
    expect(plan.handles("plan")).toBe(false);
    expect(plan.handles("update_plan")).toBe(true);

    const without = new RunPlan(false);
    expect(without.planning).toBe(false);
    expect(without.tools()).toEqual({});
    expect(without.handles("plan") || without.handles("update_plan")).toBe(false);
  });

  it("refuses a plan that breaks the schema with what to fix, and stays in the planning step", () => {
    const plan = new RunPlan(true);
    const tooMany = Array.from({ length: PLAN_LIMITS.steps + 1 }, (_, index) => `Step ${index + 1}`);
    for (const input of [{ steps: [] }, steps(...tooMany), steps(""), { steps: [{ title: "A", extra: 1 }] }, "plan"]) {
      const outcome = plan.call("plan", input, 1, "c1");
      expect(outcome.ok, JSON.stringify(input)).toBe(false);
      expect(!outcome.ok && outcome.error).toMatch(/^Invalid input for plan: .+ Call plan again with a valid one\.$/);
    }
    expect(plan.planning).toBe(true);
  });

  it("marks items, keeps a note only from the update that gave it, names the step that changed each, and adds", () => {
    const plan = planned("Read the CSV", "Sum the column", "Chart it");
    updated(plan, {
      updates: [
        { id: "p1", status: "done" },
        { id: "p3", status: "skipped", note: "No chart asked" },
      ],
    });
    const after = updated(plan, { updates: [{ id: "p3", status: "done" }], add: [{ title: "Answer" }] }, 3);
    expect(after.steps).toEqual([
      { id: "p1", title: "Read the CSV", status: "done", step: 2 },
      { id: "p2", title: "Sum the column", status: "pending", step: 1 },
      { id: "p3", title: "Chart it", status: "done", step: 3 },
      { id: "p4", title: "Answer", status: "pending", step: 3 },
    ]);
  });

  it("refuses an update of an item it does not have, naming the ids it has, and one past the plan's size", () => {
    const plan = planned("A", "B");
    const unknown = plan.call("update_plan", { updates: [{ id: "p9", status: "done" }] }, 2, "c2");
    expect(unknown).toEqual({
      ok: false,
      error: "Invalid input for update_plan: no item p9; the plan's ids are p1, p2.",
    });
    const adds = Array.from({ length: PLAN_LIMITS.items - 1 }, (_, index) => ({ title: `More ${index}` }));
    const outcome = plan.call("update_plan", { add: adds }, 2, "c2");
    expect(!outcome.ok && outcome.error).toContain(`at most ${PLAN_LIMITS.items} items`);
    expect(updated(plan, { updates: [{ id: "p2", status: "in_progress" }] }).steps).toHaveLength(2);
  });
});

const logged = (...events: AgentEvent[]): LoggedEvent[] => events.map((event) => ({ ...event, runId: "r1", at: 0 }));
const planEvent = (type: "plan_created" | "plan_updated", step: number, plan: Plan): AgentEvent => ({
  type,
  step,
  callId: `c${step}`,
  plan,
});

describe("a plan in the stored events", () => {
  const first: Plan = { steps: [{ id: "p1", title: "A", status: "pending", step: 1 }] };
  const second: Plan = { steps: [{ id: "p1", title: "A", status: "done", step: 2 }] };

  it("is where a run taken over goes on: the plan of its finished steps, not of the step it was in", () => {
    const progress = progressOf(
      logged(
        { type: "run_started", messageId: "m", model: "x", plan: true },
        { type: "step_started", step: 1 },
        planEvent("plan_created", 1, first),
        { type: "step_finished", step: 1, finishReason: "tool-calls" },
        { type: "step_started", step: 2 },
        planEvent("plan_updated", 2, second),
      ),
    );
    expect(progress).toMatchObject({ planFirst: true, plan: first, finishedSteps: 1 });
    expect(progressOf(logged({ type: "run_started", messageId: "m", model: "x" })).planFirst).toBe(false);
  });

  it("is the run's plan in the trace, the latest event's, with that event's id; other runs stay as they were", () => {
    const events: TraceEvent[] = [
      { type: "run_started", messageId: "m0", model: "x", runId: "r0", at: 0, id: 1 },
      { type: "run_started", messageId: "m1", model: "x", plan: true, runId: "r1", at: 1, id: 2 },
      { ...planEvent("plan_created", 1, first), runId: "r1", at: 2, id: 3 },
    ];
    const trace = applyEvents(emptyTrace, events);
    expect(trace.runs[0].plan).toBeUndefined();
    expect(trace.runs[0].planFirst).toBeUndefined();
    expect(trace.runs[1]).toMatchObject({ planFirst: true, plan: { ...first, eventId: 3 } });

    const next = applyEvents(trace, [{ ...planEvent("plan_updated", 2, second), runId: "r1", at: 3, id: 4 }]);
    expect(next.runs[1].plan).toEqual({ ...second, eventId: 4 });
    expect(next.runs[0]).toBe(trace.runs[0]);
  });
});
