import { jsonSchema, tool, type ToolSet } from "ai";
import { Validator } from "@cfworker/json-schema";
import { listActiveTools } from "@/lib/db/tools";
import { builtinTools } from "./builtin";
import { registeredTool } from "./registered-tool";
import type { AgentTool, ToolContext, ToolResult } from "./types";

interface Entry {
  tool: AgentTool;
  validator: Validator;
}

/**
 * The tools one conversation can call: the built-ins and the latest version of every tool it registered. Every
 * call goes through `call`, which validates the input against the tool's schema and turns any failure into a
 * result the model can read.
 */
export class Toolset {
  private readonly entries = new Map<string, Entry>();

  constructor(tools: AgentTool[]) {
    for (const agentTool of tools) this.add(agentTool);
  }

  add(agentTool: AgentTool): void {
    this.entries.set(agentTool.name, { tool: agentTool, validator: new Validator(agentTool.parametersSchema as object, "2020-12", false) });
  }

  get(name: string): AgentTool | undefined {
    return this.entries.get(name)?.tool;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** The tool list for the model's next request. */
  forModel(): ToolSet {
    return Object.fromEntries(
      [...this.entries.values()].map(({ tool: agentTool }) => [
        agentTool.name,
        tool({ description: agentTool.description, inputSchema: jsonSchema(agentTool.parametersSchema) }),
      ]),
    );
  }

  async call(name: string, input: unknown, context: Omit<ToolContext, "toolset">): Promise<ToolResult> {
    const entry = this.entries.get(name);
    if (!entry) return { ok: false, error: this.unknownToolHint(name) };
    const validation = entry.validator.validate(input);
    if (!validation.valid) {
      const problems = validation.errors
        .filter((error) => error.keyword !== "properties")
        .slice(0, 5)
        .map((error) => `${error.instanceLocation === "#" ? "input" : error.instanceLocation.slice(2)}: ${error.error}`);
      return { ok: false, error: `Invalid input for ${name}: ${problems.join("; ") || "does not match its schema"}.` };
    }
    try {
      return await entry.tool.execute(input, { ...context, toolset: this });
    } catch (error) {
      return { ok: false, error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  unknownToolHint(name: string): string {
    return (
      `There is no tool named "${name}". Available tools: ${this.names().join(", ")}. ` +
      "If none of them fits, create one with register_tool(name, description, parameters_schema, code), then call it."
    );
  }
}

/** Rebuilt from the database at the start of every run, so a restart or another server sees the same tools. */
export async function loadToolset(conversationId: string): Promise<Toolset> {
  const stored = await listActiveTools(conversationId);
  return new Toolset([...builtinTools, ...stored.map(registeredTool)]);
}
