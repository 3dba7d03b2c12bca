import type { Execution } from "@/lib/contract/responses";
import { recordAudit, type AuditDecision } from "@/lib/db/queries/audit";
import { recordExecution } from "@/lib/db/queries/executions";
import { takeSharedToken } from "@/lib/db/queries/rate-buckets";
import { RateLimiter } from "@/lib/platform/token-bucket";
import { toolCallTraceparent } from "@/lib/platform/trace-ids";
import { config, databaseConfig } from "@/lib/settings/config";
import { mcpRateLimit, type RateLimit } from "@/lib/settings/mcp-servers";
import type { AgentProfile, ToolSettings } from "@/lib/settings/profiles";
import type { WorkspaceChanges } from "@/lib/files/workspace-sync";
import { writtenFile } from "@/lib/files/views";
import { invalidInput } from "./define-tool";
import { isBuiltinName } from "./names";
import { capResult } from "./output";
import type { AgentTool, CallTool, CodeCalls, ToolRegistry, ToolResult } from "./types";

/** Who a call acts for and where it comes from; the audit entry and the execution record say so. */
export interface Caller {
  /** The identity the call acts for: its tools and its data. */
  ownerId: string;
  source: Execution["source"];
  conversationId?: string;
  runId?: string;
  /** The model's id for the call, and the step it came in, in chat. */
  callId?: string;
  step?: number;
}

export interface ToolCall {
  /** The name the caller asked for; `tool` is the tool of that name, if there is one. */
  name: string;
  tool: AgentTool | undefined;
  input: unknown;
  caller: Caller;
  /** The run's profile: settings, rate limits and approvals of its tools. The API's calls have none. */
  profile?: AgentProfile;
  /** Why the call cannot be made as sent (the model's arguments were not JSON): it fails with this. */
  problem?: string;
  signal?: AbortSignal;
  /** Ask a person whether the call may run, when the profile says so; without it, such calls are denied. */
  requestApproval?: (tool: string, input: unknown) => Promise<boolean>;
  /** The tools the call dispatches against: register_tool adds to them. */
  registry?: ToolRegistry;
  /** What to answer when no tool has the name. */
  unknownTool?: (name: string) => string;
  /** The tools whose code made this call with tools.call, outermost first: depth and cycles are checked on them. */
  callers?: string[];
  /** Tells the trace of each call a tool's code makes, to be shown under its caller. */
  onNested?: (event: NestedCallEvent) => void;
}

/** A call made by a tool's code, as the trace hears of it (the run adds the step). */
export type NestedCallEvent =
  | { type: "nested_tool_call"; callId: string; parentCallId: string; name: string; input: unknown }
  | {
      type: "nested_tool_result";
      callId: string;
      parentCallId: string;
      name: string;
      ok: boolean;
      output?: unknown;
      error?: string;
      durationMs: number;
      server?: string;
    };

/** How deep tools.call goes: a tool whose code calls a tool whose code calls another, and so on. */
export const MAX_CALL_DEPTH = 4;

export interface CallOutcome {
  /** Capped as the model, the trace and the API see it (`TOOLSMITH_TOOL_OUTPUT_CHARS`). */
  result: ToolResult;
  decision: AuditDecision;
  /** What is wrong with the input, when it did not match the tool's schema (the API answers 400). */
  invalidInput?: string[];
  durationMs: number;
  /** The MCP server that answered, for an MCP tool. */
  server?: string;
}

/**
 * The one way a tool is called, from chat, the REST API and any other caller: check the input against the tool's
 * schema, apply the profile's rate limit and approval, run the tool, and record the audit entry and the execution.
 * Every failure of a call is a result; it throws only when its run leaves this instance while the call awaits a
 * person's approval (no one answered, so nothing is recorded). The records are written in the background, batched.
 */
export async function callTool(call: ToolCall): Promise<CallOutcome> {
  const started = performance.now();
  const decided = await decideAndRun(call);
  const result = capResult(decided.result, config.toolOutputChars);
  const durationMs = performance.now() - started;
  const outcome = { ...decided, result, durationMs, ...(call.tool?.mcpServer && { server: call.tool.mcpServer }) };
  record(call, outcome);
  return outcome;
}

async function decideAndRun(call: ToolCall): Promise<Omit<CallOutcome, "durationMs">> {
  const { name, tool, profile, caller } = call;
  const refuse = (error: string, decision: AuditDecision = "refused") => ({
    result: { ok: false as const, error },
    decision,
  });
  if (call.problem) return refuse(call.problem);
  if (!tool)
    return refuse(
      call.registry?.mcp?.unavailableTool(name) ?? call.unknownTool?.(name) ?? `There is no tool named "${name}".`,
    );
  const builtin = isBuiltinName(name) ? name : undefined;
  const settings: ToolSettings = (builtin && profile?.tool_config[builtin]) || {};
  // An MCP tool counts against its own entry, else its server's (`server__*`); a built-in against its settings.
  const rate = tool.mcpServer
    ? profile && mcpRateLimit(profile.tool_config, tool.mcpServer, name)
    : settings.rate_limit && { bucket: name, limit: settings.rate_limit };
  if (rate && profile) {
    // A count the database cannot take refuses the call: a limit that cannot be checked is not lifted.
    const limited = await takeToolToken(profile.name, rate.bucket, rate.limit, caller.ownerId).catch((error) => {
      console.error(`Could not count a ${name} call against its rate limit:`, error);
      return { ok: false as const, retryAfterSeconds: 1 };
    });
    if (!limited.ok) {
      const counted = rate.bucket === name ? "" : ` (counted with every tool of its server, as ${rate.bucket})`;
      const error = `${name} is rate-limited in the "${profile.name}" profile${counted}; try again in ${limited.retryAfterSeconds} s.`;
      return refuse(error, "rate_limited");
    }
  }
  const parsed = tool.parse(call.input);
  if (!parsed.ok) {
    return {
      ...refuse(invalidInput(name, parsed.problems)),
      invalidInput: parsed.problems,
    };
  }
  let decision: AuditDecision = "allowed";
  if (tool.asksApproval || (builtin && profile?.approval.includes(builtin))) {
    if (!call.requestApproval || !(await call.requestApproval(name, parsed.input))) {
      const asker = tool.asksApproval ? "this tool may change things, so a person is asked" : "this profile asks";
      const error = `A person denied this ${name} call (${asker} before each one). Do not retry it unchanged.`;
      return refuse(error, "denied");
    }
    decision = "approved";
  }
  const { ownerId, conversationId, runId, step, callId } = caller;
  const context = {
    ownerId,
    conversationId,
    runId,
    signal: call.signal ?? new AbortController().signal,
    settings,
    network: profile?.network,
    callTool: nestedCaller(call),
    codeCalls: codeCalls(call),
    nested: (call.callers?.length ?? 0) > 0,
    traceparent: runId && step !== undefined && callId ? toolCallTraceparent(runId, step, callId) : undefined,
  };
  try {
    // Loaded only for a call that needs it: the call path itself reaches no database (tests/unit/tool-call.test.ts).
    const sync = tool.usesWorkspace && conversationId ? await import("@/lib/files/workspace-sync") : undefined;
    const workspace = sync && conversationId ? await sync.openWorkspace(conversationId) : undefined;
    // What the call wrote is stored however it ended: a call that threw may have written files too.
    const stored = () =>
      sync && workspace && conversationId
        ? sync.storeWorkspace(conversationId, { ownerId, runId, callId, toolName: name })
        : Promise.resolve(undefined);
    const result = await tool
      .execute(parsed.input, { ...context, tools: call.registry, workspace })
      .catch(async (error: unknown) => {
        await stored();
        throw error;
      });
    const changes = await stored();
    // A tool that refused by policy did not act: audited as refused, with its reason, whatever came before.
    return { result: withChanges(result, changes), decision: !result.ok && result.refused ? "refused" : decision };
  } catch (error) {
    return refuse(`${name} failed: ${error instanceof Error ? error.message : String(error)}`, decision);
  }
}

/** A successful call's result names the files it wrote, deleted, or could not keep. */
function withChanges(result: ToolResult, changes: WorkspaceChanges | undefined): ToolResult {
  if (!result.ok || !changes) return result;
  const { written, deleted, refused } = changes;
  return {
    ...result,
    ...(written.length > 0 && { files: written.map(writtenFile) }),
    ...(deleted.length > 0 && { deletedFiles: deleted.map((name) => `/${name}`) }),
    ...(refused.length > 0 && { refusedFiles: refused }),
  };
}

/**
 * What a tool's code calls other tools with (tools.call): each call goes the one path, on behalf of the same person
 * and run, under the same profile and approvals, audited and recorded, and told to the trace under its caller. A
 * call back into a tool already calling, or deeper than MAX_CALL_DEPTH, is refused; so is a tool that changes the
 * run's tools (register_tool, search_tools). Its time is the caller's: `signal` ends with the caller's call.
 */
function nestedCaller(outer: ToolCall): CallTool {
  let made = 0;
  return async (name, input, signal) => {
    const callers = [...(outer.callers ?? []), outer.name];
    const parentCallId = outer.caller.callId ?? outer.name;
    const callId = `${parentCallId}.${++made}`;
    const path = [...callers, name].join(" → ");
    const refusedByShape = callers.includes(name)
      ? `tools.call refused: ${path} is a cycle; a tool may not call itself, directly or through others.`
      : callers.length >= MAX_CALL_DEPTH
        ? `tools.call refused: ${path} goes deeper than ${MAX_CALL_DEPTH} tools.`
        : undefined;
    // A call refused for its place in the chain needs no lookup of the tool.
    const tool = refusedByShape ? undefined : await outer.registry?.resolve?.(outer.caller.ownerId, name);
    const problem =
      refusedByShape ??
      (tool?.changesToolset
        ? `tools.call refused: ${name} changes the run's tools and cannot be called from a tool's code.`
        : undefined);
    outer.onNested?.({ type: "nested_tool_call", callId, parentCallId, name, input });
    const { result, durationMs, server } = await callTool({
      ...outer,
      name,
      tool,
      input,
      problem,
      signal,
      callers,
      caller: { ...outer.caller, callId },
    });
    outer.onNested?.({
      type: "nested_tool_result",
      callId,
      parentCallId,
      name,
      durationMs: Math.round(durationMs),
      ...(server && { server }),
      ...(result.ok ? { ok: true, output: result.output } : { ok: false, error: result.error }),
    });
    return result;
  };
}

/** What the calls a ToolCall would make share: who for, under which profile, and told to which trace. */
export type CallContext = Omit<ToolCall, "name" | "tool" | "input">;

/**
 * tools.call for code that runs outside its own tool's call, on the terms of `call`: a new version's examples as
 * register_tool or the API checks them, and the examples of the tools that use it. Needs a registry that resolves.
 */
export function codeCalls(call: CallContext): CodeCalls | undefined {
  const { registry } = call;
  if (!registry?.resolve) return undefined;
  return {
    registry,
    resolve: (name) => registry.resolve!(call.caller.ownerId, name),
    callsAs: (toolName) => nestedCaller({ ...call, name: toolName, tool: undefined, input: undefined }),
    network: call.profile?.network,
  };
}

/** The audit entry and the execution record of a call, written once, in the background. */
function record({ name, tool, input, caller, profile }: ToolCall, outcome: CallOutcome): void {
  const { result, decision, durationMs } = outcome;
  const ran = decision === "allowed" || decision === "approved";
  const status = callStatus(result);
  const logFailure = (what: string) => (error: unknown) => console.error(`Could not record ${what}:`, error);
  recordAudit({
    ownerId: caller.ownerId,
    conversationId: caller.conversationId,
    runId: caller.runId,
    tool: name,
    profile: profile?.name,
    decision,
    reason: ran || result.ok ? undefined : result.error,
    input,
    outcome: ran ? status : undefined,
    durationMs,
  }).catch(logFailure("a tool call in the audit log"));
  // A run's refused call is still a call: the model read the refusal as its result. The API answers 400 instead.
  if (!ran && caller.source !== "chat") return;
  recordExecution({
    source: caller.source,
    conversationId: caller.conversationId,
    runId: caller.runId,
    callId: caller.callId,
    toolName: name,
    versionId: tool?.versionId,
    input,
    output: result.ok ? result.output : undefined,
    error: result.ok ? undefined : result.error,
    status,
    durationMs,
  }).catch(logFailure("a tool execution"));
}

/** How a call went, in the words of the execution records and the audit log. */
const callStatus = (result: ToolResult) => (result.ok ? "succeeded" : result.cancelled ? "cancelled" : "failed");

/** One bucket per profile and tool, keyed by identity. */
const toolLimiters = new Map<string, RateLimiter>();

/**
 * One call against a profile's rate limit of a tool, for one identity. On PostgreSQL the count is the database's, so
 * that every instance shares it; SQLite serves one instance, which counts in memory.
 */
async function takeToolToken(profile: string, tool: string, limit: RateLimit, ownerId: string) {
  const key = `${profile}:${tool}:${limit.calls}/${limit.per_seconds}`;
  if (databaseConfig().provider === "postgresql")
    return takeSharedToken(`${key}:${ownerId}`, limit.calls, limit.per_seconds);
  let limiter = toolLimiters.get(key);
  if (!limiter) toolLimiters.set(key, (limiter = new RateLimiter(limit.calls, limit.per_seconds * 1000)));
  return limiter.take(ownerId);
}
