import { z } from "zod";
import { ToolLanguage } from "@/lib/sandbox/languages";
import { ExampleOutcome, ToolExample, Violation } from "./events";
import { ErrorBody, Tool } from "./responses";

/*
 * The events of writing a tool from a description (POST /api/tools/generate, and POST /api/tools with only a
 * description when the client accepts text/event-stream): each attempt, what failed, and the outcome. The last
 * event is `tool_created` or `generation_failed`, which carry what the JSON answer would (201, 422 or 502).
 */

const attempt = z.number().int().min(1).describe("1 for the first attempt, then one more per repair.");

/** What the model wrote in one attempt, as register_tool takes it. */
export const WrittenTool = z.object({
  name: z.string(),
  description: z.string(),
  parameters_schema: z.record(z.string(), z.unknown()),
  code: z.string(),
  language: ToolLanguage.describe("The language its code is in: the one asked for."),
  examples: z.array(ToolExample),
  uses: z.array(z.string()).optional().describe("The tools its code calls with tools.call."),
  secrets: z.array(z.string()).optional().describe("The secrets its code reads by name (Settings → Secrets)."),
});
export type WrittenTool = z.infer<typeof WrittenTool>;

/** Why an attempt was not accepted; `output` is an answer that was not a tool definition at all. */
export const AttemptProblem = z.enum(["output", "name", "schema", "uses", "secrets", "policy", "compile", "examples"]);
export type AttemptProblem = z.infer<typeof AttemptProblem>;

/** The 422 answer when no attempt passed: the last attempt's violations or examples. */
export const GenerationRefused = ErrorBody.extend({
  attempts: z.number().int(),
  violations: z.array(Violation).optional(),
  failures: z.array(ExampleOutcome).optional(),
}).meta({ id: "GenerationRefused" });
export type GenerationRefused = z.infer<typeof GenerationRefused>;
/** The JSON answer of a generation that did not give a tool: 422 refused, or 502 when the model server failed. */
export const GenerationFailure = z.union([GenerationRefused, ErrorBody]);

export const GenerationEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("attempt_started"), attempt, of: z.number().int().describe("The attempts allowed.") }),
  z.object({ type: z.literal("attempt_written"), attempt, tool: WrittenTool }),
  z.object({
    type: z.literal("attempt_failed"),
    attempt,
    problem: AttemptProblem,
    message: z.string().describe("What the model is shown to repair it."),
    violations: z.array(Violation).optional(),
    failures: z.array(ExampleOutcome).optional(),
  }),
  z.object({ type: z.literal("tool_created"), attempt, tool: Tool }),
  z.object({
    type: z.literal("generation_failed"),
    status: z.union([z.literal(422), z.literal(502)]).describe("The status the JSON answer has."),
    body: GenerationFailure,
  }),
]);
export type GenerationEvent = z.infer<typeof GenerationEvent>;

/** The types of the generation stream's events, apart from a run's (tests check each stream by its own schema). */
export const GENERATION_EVENT_TYPES: ReadonlySet<string> = new Set(
  GenerationEvent.options.map((option) => option.shape.type.value),
);
