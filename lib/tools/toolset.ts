import { jsonSchema, tool, type ToolSet } from "ai";
import { recordAudit, type AuditDecision } from "@/lib/db/queries/audit";
import { listOfferedTools } from "@/lib/db/queries/tools";
import { builtinTools } from "./builtin";
import { registeredTool } from "./registered-tool";
import { RateLimiter } from "@/lib/http/rate-limit";
import type { AgentProfile } from "@/lib/settings/profiles";
import type { AgentTool, ToolContext, ToolRegistry, ToolResult } from "./types";

/** What a call from the loop brings: whose it is, and a way to ask a person when the profile says so. */
export type CallContext = Omit<ToolContext, "tools" | "settings"> & {
  requestApproval?: (tool: string, input: unknown) => Promise<boolean>;
};

/** Schema problems shown to the model per call: enough to fix the call, not a dump. */
const MAX_INPUT_PROBLEMS = 5;

/**
 * The tools one conversation can call: the built-ins and the latest version of every tool it registered. Every
 * call goes through `call`, which checks the input against the tool's schema and turns any failure into a
 * result the model can read.
 */
export class Toolset implements ToolRegistry {
  private readonly tools = new Map<string, AgentTool>();

  constructor(
    tools: AgentTool[],
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

  /** Call a tool for the model, and append the call to the audit log with the profile's decision. */
  async call(name: string, input: unknown, context: CallContext): Promise<ToolResult> {
    const started = performance.now();
    const { result, decision } = await this.dispatch(name, input, context);
    const ran = decision === "allowed" || decision === "approved";
    recordAudit({
      ownerId: context.ownerId,
      conversationId: context.conversationId,
      runId: context.runId,
      tool: name,
      profile: this.profile?.name,
      decision,
      reason: ran || result.ok ? undefined : result.error,
      input,
      outcome: ran ? callOutcome(result) : undefined,
      durationMs: performance.now() - started,
    }).catch((error) => console.error("Could not append to the audit log:", error));
    return result;
  }

  private async dispatch(
    name: string,
    input: unknown,
    { requestApproval, ...context }: CallContext,
  ): Promise<{ result: ToolResult; decision: AuditDecision }> {
    const agentTool = this.tools.get(name);
    if (!agentTool) return { result: { ok: false, error: this.unknownToolHint(name) }, decision: "refused" };
    const settings = this.profile?.tool_config[name as keyof AgentProfile["tool_config"]] ?? {};
    if (settings.rate_limit && this.profile) {
      const limited = toolLimiter(this.profile.name, name, settings.rate_limit).take(context.ownerId);
      if (!limited.ok) {
        return {
          result: {
            ok: false,
            error: `${name} is rate-limited in the "${this.profile.name}" profile; try again in ${limited.retryAfterSeconds} s.`,
          },
          decision: "rate_limited",
        };
      }
    }
    const parsed = agentTool.parse(input);
    if (!parsed.ok) {
      const problems = parsed.problems.slice(0, MAX_INPUT_PROBLEMS).join("; ");
      return {
        result: { ok: false, error: `Invalid input for ${name}: ${problems || "does not match its schema"}.` },
        decision: "refused",
      };
    }
    let decision: AuditDecision = "allowed";
    if (this.profile?.approval.includes(name as AgentProfile["approval"][number])) {
      if (!requestApproval || !(await requestApproval(name, parsed.input))) {
        return {
          result: {
            ok: false,
            error: `A person denied this ${name} call (this profile asks before each one). Do not retry it unchanged.`,
          },
          decision: "denied",
        };
      }
      decision = "approved";
    }
    try {
      return { result: await agentTool.execute(parsed.input, { ...context, settings, tools: this }), decision };
    } catch (error) {
      return {
        result: { ok: false, error: `${name} failed: ${error instanceof Error ? error.message : String(error)}` },
        decision,
      };
    }
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
  const allowed = builtinTools.filter((agentTool) => (profile.tools as string[]).includes(agentTool.name));
  // A stored tool never shadows a built-in one, allowed or not.
  const builtinNames = new Set(builtinTools.map((agentTool) => agentTool.name));
  return new Toolset([...allowed, ...stored.filter((row) => !builtinNames.has(row.name)).map(registeredTool)], profile);
}

/** One bucket per profile and tool, keyed by identity. */
const toolLimiters = new Map<string, RateLimiter>();
function toolLimiter(
  profile: string,
  tool: string,
  { calls, per_seconds }: { calls: number; per_seconds: number },
): RateLimiter {
  const key = `${profile}:${tool}:${calls}/${per_seconds}`;
  if (!toolLimiters.has(key)) toolLimiters.set(key, new RateLimiter(calls, per_seconds * 1000));
  return toolLimiters.get(key)!;
}

/** How a call that ran went, in the words of the execution records and the audit log. */
export const callOutcome = (result: ToolResult) =>
  result.ok ? "succeeded" : result.cancelled ? "cancelled" : "failed";
