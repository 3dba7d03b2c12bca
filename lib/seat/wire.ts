import type { z } from "zod";
import type { GenerationEvent } from "@/lib/contract/generation";
import type { Tool } from "@/lib/contract/responses";
import { SeatTool, type SeatProblem, type SeatRun } from "@/lib/contract/seat";
import { noCalls } from "@/lib/db/queries/executions";
import { firstVersionTimes } from "@/lib/db/queries/tools";
import { answer } from "@/lib/http/route";
import { ApiError } from "@/lib/platform/errors";
import { seatStatistics, toolRunJson } from "@/lib/tools/library/wire";
import type { CallOutcome } from "@/lib/tools/call";

/*
 * Toolsmith's answers in SEAT's shapes: a thin renaming of what the /api/tools routes compute (lib/tools/library),
 * never a second computation of it.
 */

/** Tools in SEAT's shape, from the API's: `created_at` is the first version's, `updated_at` the latest one's. */
export async function seatTools(tools: Tool[]): Promise<SeatTool[]> {
  // A tool of one version was created when it was updated: only older tools need their first version's time.
  const firstMade = await firstVersionTimes(tools.filter((tool) => tool.version > 1).map((tool) => tool.id));
  return tools.map((tool) => ({
    id: tool.id,
    name: tool.name,
    description: tool.description,
    code: tool.code,
    input_schema: tool.input_schema,
    status: tool.status,
    statistics: tool.statistics ?? seatStatistics(noCalls()),
    created_at: firstMade.get(tool.id)?.toISOString() ?? tool.createdAt,
    updated_at: tool.createdAt,
  }));
}

/**
 * A call's outcome as SEAT's execute answers it. `output` is text, as SEAT's harness prints the value: Python's str()
 * (212.0 stays "212.0"), else a string as it is and any other value as JSON. Input that does not match the tool's
 * schema is a failed call, as a SEAT tool called with the wrong arguments fails.
 */
export function seatRun({ result, invalidInput, durationMs }: CallOutcome): SeatRun {
  const { success, error, execution_time } = toolRunJson(result, durationMs);
  if (invalidInput)
    return {
      success: false,
      output: null,
      error: `The input does not match the tool's input_schema: ${invalidInput.join("; ")}.`,
      execution_time,
    };
  if (!result.ok) return { success, output: null, error, execution_time };
  const printed =
    result.text ?? (typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? null));
  return { success, output: printed, error, execution_time };
}

/** A generation's outcome for POST /seat/tools: 201 with the tool, or its failure (422, 502) as `{ detail }`. */
export async function createdSeatTool(events: AsyncGenerator<GenerationEvent>): Promise<Response> {
  for await (const event of events) {
    if (event.type === "tool_created") return answer(SeatTool, (await seatTools([event.tool]))[0], 201);
    if (event.type === "generation_failed")
      throw new ApiError(event.status, event.body.error.code, event.body.error.message);
  }
  // The generator ends without an outcome only when the request was abandoned; nobody reads this.
  throw new ApiError(499, "abandoned", "The client closed the request.");
}

/** pydantic's words for a value of the wrong type, by the type zod expected. */
const TYPE_PROBLEMS: Record<string, Pick<SeatProblem, "type" | "msg">> = {
  string: { type: "string_type", msg: "Input should be a valid string" },
  number: { type: "float_type", msg: "Input should be a valid number" },
  boolean: { type: "bool_type", msg: "Input should be a valid boolean" },
  array: { type: "list_type", msg: "Input should be a valid list" },
  object: { type: "dict_type", msg: "Input should be a valid dictionary" },
  record: { type: "dict_type", msg: "Input should be a valid dictionary" },
};

/** A zod issue as FastAPI reports a validation error, at `where` ("body" or "query"). */
export function seatProblem(issue: z.core.$ZodIssue, where: "body" | "query"): SeatProblem {
  const loc = [where, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))];
  const input = issue.input === undefined ? {} : { input: issue.input };
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return { type: "missing", loc, msg: "Field required" };
      return { loc, ...(TYPE_PROBLEMS[issue.expected] ?? { type: "value_error", msg: issue.message }), ...input };
    case "too_small":
    case "too_big": {
      const short = issue.code === "too_small";
      const bound = short ? issue.minimum : issue.maximum;
      if (issue.origin !== "string") return { type: "value_error", loc, msg: issue.message, ...input };
      const msg = `String should have at ${short ? "least" : "most"} ${bound} character${bound === 1 ? "" : "s"}`;
      return { type: short ? "string_too_short" : "string_too_long", loc, msg, ...input };
    }
    case "invalid_value": {
      const values = issue.values.map((value) => `'${String(value)}'`);
      const listed = values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` : values[0];
      return { type: "enum", loc, msg: `Input should be ${listed}`, ...input };
    }
    case "invalid_format":
      if (issue.format === "regex")
        return {
          type: "string_pattern_mismatch",
          loc,
          msg: `String should match pattern '${issue.pattern}'`,
          ...input,
        };
      return { type: "value_error", loc, msg: issue.message, ...input };
    default:
      return { type: "value_error", loc, msg: issue.message, ...input };
  }
}
