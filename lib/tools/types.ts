import type { JSONSchema7 } from "ai";
import type { RegisteredToolView } from "@/lib/events/types";
import type { Violation } from "@/lib/sandbox/check";
import type { Toolset } from "./toolset";

export interface ToolContext {
  conversationId: string;
  runId: string;
  /** The set the agent dispatches against; register_tool adds to it. */
  toolset: Toolset;
}

export type ToolResult =
  | { ok: true; output: unknown; truncated?: boolean; registered?: RegisteredToolView }
  | { ok: false; error: string; rejected?: { name: string; violations: Violation[] } };

export interface AgentTool {
  name: string;
  description: string;
  parametersSchema: JSONSchema7;
  /** Runs alone, before the step's other calls, because it changes the tool set they dispatch against. */
  changesToolset?: boolean;
  /** The stored tool behind a registered tool. */
  toolId?: string;
  execute(input: unknown, context: ToolContext): Promise<ToolResult>;
}
