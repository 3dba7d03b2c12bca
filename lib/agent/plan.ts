import { jsonSchema, tool, type ToolSet } from "ai";
import { z } from "zod";
import type { AgentEvent, Plan, PlanItem } from "@/lib/contract/events";
import { PLAN_LIMITS } from "@/lib/settings/plan-limits";
import { invalidInput, schemaProblems } from "@/lib/tools/define-tool";
import { RUN_PLAN_TOOL_NAMES } from "@/lib/tools/names";
import { modelSchema } from "@/lib/tools/schema";

export const [PLAN_TOOL, UPDATE_PLAN_TOOL] = RUN_PLAN_TOOL_NAMES;

const PlannedStep = z.strictObject({
  title: z.string().trim().min(1).max(PLAN_LIMITS.titleChars).describe("What the step does, in a few words."),
  detail: z.string().trim().max(PLAN_LIMITS.detailChars).optional().describe("How, when the title is not enough."),
});

export const PlanInput = z.strictObject({
  steps: z.array(PlannedStep).min(1).max(PLAN_LIMITS.steps).describe(`The steps, in order: 1 to ${PLAN_LIMITS.steps}.`),
});

export const PlanUpdateInput = z.strictObject({
  updates: z
    .array(
      z.strictObject({
        id: z.string().describe("The item's id (p1, p2, …), as the plan's result lists it."),
        status: z.enum(["in_progress", "done", "skipped"]),
        note: z.string().trim().max(PLAN_LIMITS.noteChars).optional().describe("Why, for a skipped item."),
      }),
    )
    .max(PLAN_LIMITS.items)
    .default([]),
  add: z.array(PlannedStep).max(PLAN_LIMITS.items).optional().describe("Steps the plan lacked, added at its end."),
});

const PLAN_DESCRIPTION =
  "Write the plan for this request before doing anything else: the steps you will take, in order (1 to " +
  `${PLAN_LIMITS.steps}), each a short title and an optional detail. The person sees it as a checklist.`;
const UPDATE_PLAN_DESCRIPTION =
  "Keep the plan current: mark an item in_progress when you start it, done when it is done, skipped (with a note " +
  "saying why) when it is no longer needed; add steps the plan lacked. Call it in the same step as the work.";

/** The sentence the planning step adds to the system prompt, for providers that cannot force a tool call. */
export const PLANNING_INSTRUCTION =
  "\nThis is the planning step: call plan now with the steps you will take, and nothing else. Later steps offer " +
  "the other tools and update_plan.";

type PlanEvent = Extract<AgentEvent, { type: "plan_created" | "plan_updated" }>;
export type PlanCallOutcome = { ok: true; output: unknown; event: PlanEvent } | { ok: false; error: string };

/**
 * A run's plan when it plans first: the one tool of its first step (plan, which it must call), then update_plan
 * beside the others. A plan that breaks the schema is an error for the model to fix, and the planning step comes
 * again; a run without plan first has neither tool.
 */
export class RunPlan {
  constructor(
    readonly enabled: boolean,
    /** The plan so far: a run taken over goes on with the plan of its finished steps. */
    private plan?: Plan,
  ) {}

  /** The next step is the planning step: plan first, and no plan yet. */
  get planning(): boolean {
    return this.enabled && !this.plan;
  }

  /** The plan's tool for the next step, beside the run's (none while planning, when it is the only one). */
  tools(): ToolSet {
    if (!this.enabled) return {};
    return this.plan
      ? { [UPDATE_PLAN_TOOL]: modelTool(UPDATE_PLAN_DESCRIPTION, PlanUpdateInput) }
      : { [PLAN_TOOL]: modelTool(PLAN_DESCRIPTION, PlanInput) };
  }

  /** Whether the call is the plan's, which the loop answers itself rather than the run's tools. */
  handles(name: string): boolean {
    return this.enabled && name === (this.plan ? UPDATE_PLAN_TOOL : PLAN_TOOL);
  }

  call(name: string, input: unknown, step: number, callId: string): PlanCallOutcome {
    if (name === PLAN_TOOL) {
      const parsed = PlanInput.safeParse(input);
      if (!parsed.success) return invalid(name, parsed.error);
      const steps = parsed.data.steps.map((planned, index) => item(planned, index, step));
      this.plan = { steps };
      return { ok: true, output: forModel(this.plan), event: { type: "plan_created", step, callId, plan: this.plan } };
    }
    const parsed = PlanUpdateInput.safeParse(input);
    if (!parsed.success) return invalid(name, parsed.error);
    const current = this.plan?.steps ?? [];
    const { updates, add = [] } = parsed.data;
    const unknown = updates.filter((update) => !current.some((existing) => existing.id === update.id));
    if (unknown.length > 0) {
      const ids = (items: { id: string }[]) => items.map(({ id }) => id).join(", ");
      return refused(name, `no item ${ids(unknown)}; the plan's ids are ${ids(current)}`);
    }
    if (current.length + add.length > PLAN_LIMITS.items)
      return refused(name, `a plan holds at most ${PLAN_LIMITS.items} items`);
    const steps = current.map((existing) => {
      const update = updates.findLast((candidate) => candidate.id === existing.id);
      if (!update) return existing;
      const { note: _previous, ...rest } = { ...existing, status: update.status, step };
      return update.note ? { ...rest, note: update.note } : rest;
    });
    steps.push(...add.map((planned, index) => item(planned, current.length + index, step)));
    this.plan = { steps };
    return { ok: true, output: forModel(this.plan), event: { type: "plan_updated", step, callId, plan: this.plan } };
  }
}

function modelTool(description: string, schema: z.ZodType) {
  return tool({ description, inputSchema: jsonSchema(modelSchema(schema)) });
}

function item({ title, detail }: z.infer<typeof PlannedStep>, index: number, step: number): PlanItem {
  return { id: `p${index + 1}`, title, ...(detail && { detail }), status: "pending", step };
}

/** What the model reads back: the ids to name and where each item stands. */
function forModel(plan: Plan) {
  return { plan: plan.steps.map(({ id, title, status, note }) => ({ id, title, status, ...(note && { note }) })) };
}

/** A call that breaks the schema: the tools' own wording, and what to do. */
const invalid = (name: string, error: z.ZodError): PlanCallOutcome => ({
  ok: false,
  error: `${invalidInput(name, schemaProblems(error))} Call ${name} again with a valid one.`,
});

const refused = (name: string, problem: string): PlanCallOutcome => ({
  ok: false,
  error: invalidInput(name, [problem]),
});
