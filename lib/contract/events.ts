import { z } from "zod";
import { Violation } from "@/lib/sandbox/policy";
import { ToolLanguage } from "@/lib/sandbox/languages";

/*
 * The SSE contract: every event a run streams, and replays, by type. The server emits these, the browser folds
 * them (lib/trace/state.ts), and the OpenAPI document describes them; the types are inferred from the schemas.
 */

export const RunStatus = z.enum(["completed", "max_steps", "error", "cancelled"]);
export type RunStatus = z.infer<typeof RunStatus>;

/** A place in tool code the policy refuses, 1-based. */
// A violation is the sandbox policy's (what it refuses and where); the events carry it as it is.
export { Violation };

/** How one example of a tool went: what the tool returned (or the error it failed with), against what was expected. */
export const ExampleOutcome = z
  .object({
    input: z.record(z.string(), z.unknown()),
    expected_output: z.unknown(),
    passed: z.boolean(),
    actual_output: z.unknown().optional().describe("What run(input) returned; absent when it failed."),
    error: z.string().optional().describe("Why the example could not run: bad input, a throw, a limit."),
  })
  .meta({ id: "ExampleOutcome" });
export type ExampleOutcome = z.infer<typeof ExampleOutcome>;

/** The JSON of one example, at most. */
const MAX_EXAMPLE_CHARS = 16 * 1024;

/** One example of a tool: inputs, and what `run(inputs)` must return for them. */
export const ToolExample = z
  .strictObject({
    input: z.record(z.string(), z.unknown()).describe("Inputs that match parameters_schema."),
    expected_output: z
      .unknown()
      .describe("What run(input) returns, as JSON. Numbers match within a relative 1e-9; key order is ignored."),
  })
  .refine((example) => JSON.stringify(example).length <= MAX_EXAMPLE_CHARS, {
    message: `An example's JSON is at most ${MAX_EXAMPLE_CHARS / 1024} KB.`,
  })
  .meta({ id: "ToolExample" });
export type ToolExample = z.infer<typeof ToolExample>;

/** A tool that uses another, its examples run again against the other's new version. */
export const DependentCheck = z
  .object({
    id: z.string().describe("The tool's id."),
    name: z.string(),
    version: z.number().int(),
    passed: z.boolean().describe("Every example still gives its expected output."),
    failures: z.array(ExampleOutcome).describe("The examples that now fail."),
  })
  .meta({ id: "DependentCheck" });
export type DependentCheck = z.infer<typeof DependentCheck>;

/** A tool version as the trace shows it. */
export const RegisteredToolView = z.object({
  id: z.string().describe("The tool's id (shared by its versions), as the /api/tools routes know it."),
  versionId: z.string().describe("This version's id."),
  name: z.string(),
  description: z.string(),
  parametersSchema: z.record(z.string(), z.unknown()),
  language: ToolLanguage.optional().describe("The language of `code`. Absent in older logs: JavaScript."),
  code: z.string(),
  version: z.number().int(),
  examples: z
    .array(ToolExample)
    .optional()
    .describe("Each passed before the version was accepted; none: the tool is untested. Absent in older logs."),
  uses: z.array(z.string()).optional().describe("The tools its code calls with tools.call. Absent in older logs."),
  secrets: z
    .array(z.string())
    .optional()
    .describe("The secrets its code reads by name (never their values). Absent in older logs."),
  dependents: z
    .array(DependentCheck)
    .optional()
    .describe("The tools that use this one, their examples run against this version when it was registered."),
});
export type RegisteredToolView = z.infer<typeof RegisteredToolView>;

const step = z.number().int().min(0);
const usage = z.object({ inputTokens: z.number().optional(), outputTokens: z.number().optional() });
/** A time on the clock the instances share (the database's, lib/db/driver/clock.ts), in milliseconds since the epoch. */
const epochMs = z.number().int().min(0);

/** An image an MCP tool's result brought, shown in the trace beside what the model read of it. */
export const ToolImage = z.strictObject({
  mimeType: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]),
  data: z.string().describe("base64"),
});
export type ToolImage = z.infer<typeof ToolImage>;
/** A file a tool's call wrote into the conversation's workspace: the card links it, the model reads a line. */
export const WrittenFile = z.strictObject({
  id: z.string(),
  name: z.string(),
  path: z.string().describe("From the workspace's root: /report.csv."),
  size: z.number().int(),
  mimeType: z.string(),
});
export type WrittenFile = z.infer<typeof WrittenFile>;
const modelTiming = z.object({
  firstByteAt: epochMs.describe("The first part of the model's answer arrived."),
  lastByteAt: epochMs.describe("Its last part arrived."),
});

/** Who wrote an annotation or a verdict, as every viewer sees it. */
export const ReviewAuthor = z.object({
  key: z.string().describe("Stands for one identity within the conversation; not its id."),
  name: z.string().describe('The display name the identity set, "Owner", or "Reviewer 1", "Reviewer 2" …'),
});
export type ReviewAuthor = z.infer<typeof ReviewAuthor>;

export const Annotation = z
  .object({
    id: z.string(),
    runId: z.string().describe("The run of the annotated event."),
    eventId: z.number().int().describe("The annotated event: a step's step_started or a tool call's tool_call."),
    label: z.string(),
    note: z.string(),
    author: ReviewAuthor,
    at: epochMs,
  })
  .meta({ id: "Annotation" });
export type Annotation = z.infer<typeof Annotation>;

export const Verdict = z
  .object({
    id: z.string(),
    runId: z.string(),
    verdict: z.enum(["up", "down"]),
    note: z.string().optional(),
    author: ReviewAuthor,
    at: epochMs,
  })
  .meta({ id: "Verdict" });
export type Verdict = z.infer<typeof Verdict>;

export const PlanItemStatus = z.enum(["pending", "in_progress", "done", "skipped"]);
export type PlanItemStatus = z.infer<typeof PlanItemStatus>;

export const PlanItem = z
  .object({
    id: z.string().describe("Its id in the plan (p1, p2, …): what update_plan names."),
    title: z.string(),
    detail: z.string().optional(),
    status: PlanItemStatus,
    note: z.string().optional().describe("What the model said when it last changed the item (why it was skipped)."),
    step: step.optional().describe("The step that last changed it: the plan's step, or an update_plan's."),
  })
  .meta({ id: "PlanItem" });
export type PlanItem = z.infer<typeof PlanItem>;

export const Plan = z
  .object({ steps: z.array(PlanItem).describe("In the order the model wrote them; added ones at the end.") })
  .meta({ id: "Plan" });
export type Plan = z.infer<typeof Plan>;

export const AgentEvent = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("run_started"),
    messageId: z.string(),
    model: z.string(),
    profile: z.string().optional(),
    plan: z.boolean().optional().describe("Plan first: the run's first step writes a plan. Absent: it does not."),
    segment: z.string().optional(),
  }),
  z.object({ type: z.literal("step_started"), step }),
  z.object({
    type: z.literal("reasoning_delta"),
    step,
    delta: z.string(),
    signature: z
      .string()
      .optional()
      .describe("Claude's signature of the thinking block this delta ends, which goes back to the model with it"),
    redacted: z
      .string()
      .optional()
      .describe("A thinking block Claude sent encrypted (its text is empty), which goes back to the model as it came"),
  }),
  z.object({ type: z.literal("text_delta"), step, delta: z.string() }),
  z.object({ type: z.literal("tool_call"), step, callId: z.string(), name: z.string(), input: z.unknown() }),
  z
    .object({
      type: z.literal("nested_tool_call"),
      step,
      callId: z.string().describe("The caller's callId, a dot, and the call's number within it: call_1.1, call_1.1.2."),
      parentCallId: z.string().describe("The call whose code made this one with tools.call."),
      name: z.string(),
      input: z.unknown(),
    })
    .describe("A tool's code called another tool (tools.call): shown under its caller, never sent to the model."),
  z.object({
    type: z.literal("tool_result"),
    step,
    callId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    durationMs: z.number(),
    truncated: z.boolean().optional(),
    startedAt: epochMs.optional().describe("When the call began (its end is this event's `at`). Absent in older logs."),
    server: z.string().optional().describe("The MCP server that answered, for a tool of a connected MCP server."),
    images: z
      .array(ToolImage)
      .optional()
      .describe("Images the result brought (an MCP tool's, a chart a tool's code drew), for people to see."),
    logs: z.array(z.string()).optional().describe("What the tool's code printed, when it succeeded (capped)."),
    files: z
      .array(WrittenFile)
      .optional()
      .describe("Files the call wrote or changed in the conversation's workspace, now among its files."),
    deletedFiles: z.array(z.string()).optional().describe("Paths of files the call deleted from the workspace."),
    refusedFiles: z
      .array(z.string())
      .optional()
      .describe("Files the call wrote that were not kept, each with the limit it passed."),
  }),
  z.object({
    type: z.literal("nested_tool_result"),
    step,
    callId: z.string(),
    parentCallId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    durationMs: z.number(),
    server: z.string().optional(),
  }),
  z.object({
    type: z.literal("tool_registered"),
    step,
    callId: z.string(),
    tool: RegisteredToolView,
    tool_name: z.string().describe("`tool.name`, at the top level where the PR's client (messageUtils.js) reads it."),
    description: z.string().describe("`tool.description`, at the top level for the same client."),
  }),
  z.object({
    type: z.literal("plan_created"),
    step,
    callId: z.string().describe("The plan call's: its tool_call and tool_result carry the same."),
    plan: Plan,
  }),
  z.object({
    type: z.literal("plan_updated"),
    step,
    callId: z.string().describe("The update_plan call's."),
    plan: Plan.describe("The whole plan after the update."),
  }),
  z.object({
    type: z.literal("tool_rejected"),
    step,
    callId: z.string(),
    name: z.string(),
    language: ToolLanguage.optional().describe("The language of `code`. Absent in older logs: JavaScript."),
    code: z.string(),
    violations: z.array(Violation).describe("What the code policy refused; empty when the examples failed."),
    failures: z.array(ExampleOutcome).optional().describe("The examples, when one or more failed."),
  }),
  z
    .object({
      type: z.literal("approval_requested"),
      step,
      callId: z.string(),
      approvalId: z.string(),
      tool: z.string(),
      input: z.unknown(),
    })
    .describe("The profile asks a person first: the call waits until POST .../approvals/{approvalId} answers."),
  z.object({
    type: z.literal("approval_resolved"),
    step,
    callId: z.string(),
    approvalId: z.string(),
    approved: z.boolean(),
  }),
  z.object({
    type: z.literal("step_finished"),
    step,
    finishReason: z.string(),
    usage: usage.optional(),
    model: modelTiming
      .optional()
      .describe(
        "When the step's model call answered; the call began at the step's step_started. Absent in older logs.",
      ),
  }),
  z.object({ type: z.literal("error"), message: z.string(), code: z.string() }),
  z
    .object({ type: z.literal("run_resumed"), step, message: z.string(), segment: z.string().optional() })
    .describe(
      "The instance executing the run died; another took it over and goes on after step `step`, or ends the run " +
        "(an `instance_lost` error follows) when the tool calls of the step after it had started.",
    ),
  z.object({ type: z.literal("run_finished"), status: RunStatus, steps: z.number().int() }),
  // Reviews: written by people into the conversation's log; the reviewed run is the annotation's or verdict's runId
  // (the event's own runId is the run that wrote it into the log, when one was running).
  z.object({ type: z.literal("annotation_added"), annotation: Annotation }),
  z.object({ type: z.literal("annotation_deleted"), annotationId: z.string() }),
  z
    .object({ type: z.literal("verdict_added"), verdict: Verdict })
    .describe("A reviewer's verdict on the run; it replaces that reviewer's earlier one."),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

/** An event as it travels and is stored: the run it belongs to, and when it happened. */
export const LoggedEvent = z.intersection(
  AgentEvent,
  z.object({ runId: z.string(), at: epochMs.describe("When the event was emitted, on the instances' shared clock.") }),
);
export type LoggedEvent = AgentEvent & { runId: string; at: number };

/** The events people write into a conversation's log, rather than its runs. */
export type ReviewEvent = Extract<AgentEvent, { type: "annotation_added" | "annotation_deleted" | "verdict_added" }>;

export const isReviewEvent = <Event extends { type: string }>(event: Event): event is Event & ReviewEvent =>
  event.type === "annotation_added" || event.type === "annotation_deleted" || event.type === "verdict_added";

/** The id a review stands under in the log, so that one sent again (a retry, another instance) is written once. */
export function reviewIdOf(event: ReviewEvent): string {
  switch (event.type) {
    case "annotation_added":
      return event.annotation.id;
    case "annotation_deleted":
      return `deleted:${event.annotationId}`;
    case "verdict_added":
      return event.verdict.id;
  }
}

/** An event as a reader gets it: its `id` is its place in the conversation's log (the SSE id). */
export const IdentifiedEvent = z.intersection(LoggedEvent, z.object({ id: z.number().int() })).meta({ id: "Event" });

export interface SequencedEvent {
  seq: number;
  event: LoggedEvent;
}
