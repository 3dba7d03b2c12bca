import { z } from "zod";
import { ToolLanguage } from "@/lib/sandbox/languages";
import { ToolDescription } from "./requests";
import { SeatStatistics } from "./responses";

/*
 * SEAT's API (the Self-Extending Agent Toolkit, a FastAPI service) as Toolsmith serves it at /seat, so that a SEAT
 * script works with only that base URL and a token: SEAT's field names, bare arrays, FastAPI's `{ detail }` errors.
 * Requests are loose objects, as pydantic's models ignore fields they do not name.
 */

/** POST /seat/tools: SEAT's create request; the model writes the tool, in Python unless `language` says otherwise. */
export const SeatNewTool = z.object({
  description: ToolDescription.shape.description,
  name: ToolDescription.shape.name,
  language: ToolLanguage.default("python").describe("Toolsmith's addition: the tool's language, Python by default."),
});

/** POST /seat/tools/{id}/execute. */
export const SeatExecution = z.object({
  input_data: z.record(z.string(), z.unknown()).default({}).describe("The tool's inputs, matching its input_schema."),
});

export const SeatListQuery = z.object({
  status: z.enum(["active", "deprecated"]).optional().describe("Only tools with this status; absent: every tool."),
});

export const SeatSearchQuery = z.object({
  q: z.string().max(200).describe("Case-insensitive text found in the name or the description."),
});

const time = z.iso.datetime();

export const SeatTool = z
  .strictObject({
    id: z.string().describe("The tool's id (a UUID); every version of a Toolsmith tool shares it."),
    name: z.string(),
    description: z.string(),
    code: z.string().describe("The latest version's source."),
    input_schema: z.record(z.string(), z.unknown()).describe("JSON Schema of the inputs."),
    status: z.enum(["active", "deprecated"]),
    statistics: SeatStatistics,
    created_at: time.describe("When the tool's first version was made."),
    updated_at: time.describe("When its latest version was made."),
  })
  .meta({ id: "SeatTool" });
export type SeatTool = z.infer<typeof SeatTool>;
export const SeatTools = z.array(SeatTool).describe("Every match, by name: a bare array, never paged.");

export const SeatRun = z
  .strictObject({
    success: z.boolean(),
    output: z
      .string()
      .nullable()
      .describe(
        'The returned value as text: for Python, str() of it (212.0 → "212.0", True → "True"); for JavaScript, a string as it is and anything else as JSON. null when the call failed.',
      ),
    error: z.string().nullable(),
    execution_time: z.number().describe("Seconds."),
  })
  .meta({ id: "SeatRun" });
export type SeatRun = z.infer<typeof SeatRun>;

export const SeatHealth = z.strictObject({ status: z.literal("ok") });

export const SeatIndex = z.strictObject({
  service: z.string(),
  docs: z.string().describe("The OpenAPI document; the SEAT routes carry the tag SEAT."),
  functions: z.array(
    z.strictObject({ name: z.string(), method: z.string(), path: z.string(), description: z.string() }),
  ),
});

/** One problem of a request, as FastAPI reports a validation error. */
export const SeatProblem = z.strictObject({
  type: z.string().describe("pydantic's error type: missing, string_type, dict_type, json_invalid, …"),
  loc: z.array(z.union([z.string(), z.number()])).describe('Where: ["body", "description"], ["query", "q"].'),
  msg: z.string(),
  input: z.unknown().optional(),
});
export type SeatProblem = z.infer<typeof SeatProblem>;

export const SeatError = z
  .strictObject({
    detail: z
      .union([z.string(), z.array(SeatProblem)])
      .describe("What went wrong; for a request that fails validation (422), each problem."),
  })
  .meta({ id: "SeatError" });
