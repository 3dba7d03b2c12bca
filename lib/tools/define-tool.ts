import { z } from "zod";
import type { BuiltinToolName } from "./names";
import { modelSchema } from "./schema";
import { workspaceOf } from "@/lib/files/workspace-path";
import type { AgentTool, ToolContext, ToolResult } from "./types";

interface BuiltinToolSpec<Schema extends z.ZodType> {
  name: BuiltinToolName;
  description: string;
  /** One schema: the model sees it as JSON Schema, the code gets its parsed, typed value. */
  inputSchema: Schema;
  changesToolset?: boolean;
  usesWorkspace?: boolean;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolResult>;
}

/** A built-in tool declared with zod, in the AI SDK's `tool()` style. */
export function defineTool<Schema extends z.ZodType>(spec: BuiltinToolSpec<Schema>): AgentTool<z.infer<Schema>> {
  return {
    name: spec.name,
    description: spec.description,
    changesToolset: spec.changesToolset,
    usesWorkspace: spec.usesWorkspace,
    parametersSchema: modelSchema(spec.inputSchema),
    parse(input) {
      const parsed = spec.inputSchema.safeParse(input);
      if (parsed.success) return { ok: true, input: parsed.data };
      return { ok: false, problems: schemaProblems(parsed.error) };
    },
    execute: spec.execute,
  };
}

/** Schema problems shown per call: enough to fix the call, not a dump. */
const MAX_INPUT_PROBLEMS = 5;

/** What the model reads of a call whose input its tool refused. */
export const invalidInput = (name: string, problems: string[]): string =>
  `Invalid input for ${name}: ${problems.slice(0, MAX_INPUT_PROBLEMS).join("; ") || "does not match its schema"}.`;

/** What a value breaking a zod schema got wrong, one line per issue: `steps: Too small: expected …`. */
export const schemaProblems = (error: z.ZodError): string[] =>
  error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`);

/** The conversation a tool that keeps per-conversation state runs for; such tools are offered in chat only. */
export function conversationOf(context: ToolContext): string {
  if (context.conversationId === undefined) throw new Error("this tool works inside a conversation only");
  return context.conversationId;
}

/**
 * The conversation's workspace folder of a call: the one lib/tools/call.ts synced with the conversation's files, or
 * for a tool called directly, this instance's folder as it is. A call outside a conversation has none.
 */
export async function callWorkspace(context: ToolContext): Promise<string> {
  return context.workspace ?? workspaceOf(conversationOf(context));
}

/** A call a policy refuses (a profile's allowed list, the workspace's bounds): `callTool` audits it as refused. */
export const refused = (reason: string): ToolResult => ({ ok: false, error: reason, refused: true });
