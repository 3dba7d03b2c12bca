import { jsonSchema, tool, type ToolSet } from "ai";
import { listOfferedTools } from "@/lib/db/queries/tools";
import type { AgentProfile } from "@/lib/settings/profiles";
import { builtinTools } from "./builtin";
import { callTool, type CallOutcome, type ToolCall } from "./call";
import { registeredTool } from "./registered-tool";
import type { AgentTool, ToolRegistry } from "./types";

/** What a call from a run brings: whose it is, where it comes from, and a way to ask a person first. */
export type RunCall = Pick<ToolCall, "input" | "problem" | "signal" | "requestApproval"> & {
  caller: Omit<ToolCall["caller"], "source">;
};

/**
 * The tools one run can call: the built-ins its profile allows and the latest version of every tool its
 * conversation registered or its owner keeps in the library. Calls go through the one tool-call path (call.ts).
 */
export class Toolset implements ToolRegistry {
  private readonly tools = new Map<string, AgentTool>();

  constructor(
    tools: readonly AgentTool[],
    private readonly profile?: AgentProfile,
  ) {
    for (const agentTool of tools) this.add(agentTool);
  }

  add(agentTool: AgentTool): void {
    this.tools.set(agentTool.name, agentTool);
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tool list for the model's next request. */
  forModel(): ToolSet {
    return Object.fromEntries(
      [...this.tools.values()].map((agentTool) => [
        agentTool.name,
        tool({ description: agentTool.description, inputSchema: jsonSchema(agentTool.parametersSchema) }),
      ]),
    );
  }

  /** Call a tool for the model, under the run's profile. */
  call(name: string, { caller, ...call }: RunCall): Promise<CallOutcome> {
    return callTool({
      ...call,
      name,
      tool: this.tools.get(name),
      caller: { ...caller, source: "chat" },
      profile: this.profile,
      registry: this,
      unknownTool: () => this.unknownToolHint(name),
    });
  }

  unknownToolHint(name: string): string {
    return (
      `There is no tool named "${name}". Available tools: ${this.names().join(", ")}. ` +
      "If none of them fits, create one with register_tool(name, description, parameters_schema, code), then call it."
    );
  }
}

/**
 * Rebuilt from the database at the start of every run, so a restart or another server sees the same tools: the
 * built-in and native tools the profile allows (the model sees no others), the conversation's own tools and its
 * owner's library (their code runs in the sandbox under any profile).
 */
export async function loadToolset(conversationId: string, ownerId: string, profile: AgentProfile): Promise<Toolset> {
  const stored = await listOfferedTools(conversationId, ownerId);
  const allowed = builtinTools.filter((agentTool) => profile.tools.some((name) => name === agentTool.name));
  // A stored tool never shadows a built-in one, allowed or not.
  const builtinNames = new Set(builtinTools.map((agentTool) => agentTool.name));
  return new Toolset([...allowed, ...stored.filter((row) => !builtinNames.has(row.name)).map(registeredTool)], profile);
}
