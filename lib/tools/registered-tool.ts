import type { JSONSchema7 } from "ai";
import type { ToolRow } from "@/lib/db/tools";
import type { RegisteredToolView } from "@/lib/events/types";
import { runInSandbox } from "@/lib/sandbox";
import type { AgentTool } from "./types";

export function toolView(row: ToolRow): RegisteredToolView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    parametersSchema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
    code: row.code,
    version: row.version,
  };
}

/** A tool the agent wrote: its code runs in the sandbox on every call. */
export function registeredTool(row: ToolRow): AgentTool {
  const view = toolView(row);
  return {
    name: view.name,
    description: view.description,
    parametersSchema: view.parametersSchema as JSONSchema7,
    toolId: view.id,
    async execute(input) {
      const result = await runInSandbox("tool", view.code, input);
      if (!result.ok) return { ok: false, error: withLogs(result.error!.message, result.logs) };
      return { ok: true, output: result.output, truncated: result.outputTruncated };
    },
  };
}

/** Console output is the best clue to why code failed: pass it on with the error. */
function withLogs(message: string, logs: string[]): string {
  return logs.length === 0 ? message : `${message}\nConsole output:\n${logs.join("\n")}`;
}
