/** The limits of a run's plan (lib/agent/plan.ts): a checklist a person reads at a glance, written by a model. */
export const PLAN_LIMITS = {
  /** Items of the plan the first step writes. */
  steps: 12,
  /** Items the plan may hold once update_plan has added to it. */
  items: 20,
  titleChars: 200,
  detailChars: 1000,
  noteChars: 500,
} as const;
