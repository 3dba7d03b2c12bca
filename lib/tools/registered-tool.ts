import type { JSONSchema7 } from "ai";
import { Validator } from "@cfworker/json-schema";
import { toolView, type ToolRow } from "@/lib/db/queries/tools";
import { runInSandbox, type SandboxResult } from "@/lib/sandbox";
import type { AgentTool, ToolResult } from "./types";

/** A tool the agent wrote: its inputs are checked against its JSON Schema, and its code runs in the sandbox. */
export function registeredTool(row: ToolRow): AgentTool {
  const view = toolView(row);
  const validator = new Validator(view.parametersSchema, "2020-12", false);
  return {
    name: view.name,
    description: view.description,
    parametersSchema: view.parametersSchema as JSONSchema7,
    toolId: view.id,
    parse(input) {
      const validation = validator.validate(input);
      if (validation.valid) return { ok: true, input };
      // "properties" only repeats the errors of the properties themselves.
      const problems = validation.errors
        .filter((error) => error.keyword !== "properties")
        .map(
          (error) => `${error.instanceLocation === "#" ? "input" : error.instanceLocation.slice(2)}: ${error.error}`,
        );
      return { ok: false, problems };
    },
    execute: (input, { signal }) => runToolCode(view.code, input, signal),
  };
}

/** Call a stored tool's `run(input)` in the sandbox. */
export async function runToolCode(code: string, input: unknown, signal?: AbortSignal): Promise<ToolResult> {
  const result = await runInSandbox("tool", code, input, signal);
  if (!result.ok) return sandboxFailure(result);
  return { ok: true, output: result.output, truncated: result.outputTruncated };
}

/** A failed sandbox call as a tool result. Console output is the best clue to why code failed: it goes along. */
export function sandboxFailure(result: Extract<SandboxResult, { ok: false }>): Extract<ToolResult, { ok: false }> {
  const logs = result.consoleTruncated ? [...result.logs, "[console output truncated]"] : result.logs;
  const error =
    logs.length === 0 ? result.error.message : `${result.error.message}\nConsole output:\n${logs.join("\n")}`;
  return { ok: false, error, cancelled: result.error.kind === "cancelled" };
}
