import type { JSONSchema7 } from "ai";
import type { ExampleOutcome, RegisteredToolView, ToolImage, Violation, WrittenFile } from "@/lib/contract/events";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import type { DomainRules } from "@/lib/sandbox/fetch-guard";
import type { ToolSettings } from "@/lib/settings/profiles";
import type { McpCatalog } from "./mcp-tools";

/** What a tool call runs in (lib/tools/call.ts builds it). */
export interface ToolContext {
  /** The identity the call acts for: its tools and its data. */
  ownerId: string;
  /** The conversation and run of a call from chat; a call through the API has neither. */
  conversationId?: string;
  runId?: string;
  /** Aborts when the run is cancelled: a tool stops its work on it, not only its caller's waiting. */
  signal: AbortSignal;
  /** The tools this call dispatches against; register_tool adds to them. */
  tools?: ToolRegistry;
  /** Calls another tool for the code of this one (tools.call), through the one path; `signal` ends with this call. */
  callTool?: CallTool;
  /** tools.call for code that runs inside this call as another tool's (register_tool runs a new tool's examples). */
  codeCalls?: CodeCalls;
  /** This call was made by another tool's code: its sandbox thread may be one beyond the pool's size. */
  nested?: boolean;
  /** The tool's settings in the run's profile (allowed domains, ...). */
  settings: ToolSettings;
  /** The profile's `network:`: what the code a call runs (a stored tool's, a snippet) may reach. */
  network?: DomainRules;
  /** The W3C traceparent of the call's execute_tool span, in a run: an MCP call passes it on in `_meta`. */
  traceparent?: string;
  /**
   * The folder of the conversation's workspace on this instance, synced with its files before the call and stored
   * back after it (lib/files/workspace-sync.ts), for a tool that `usesWorkspace`, in a conversation.
   */
  workspace?: string;
}

/** What a tool's code calls another tool with (tools.call). */
export type CallTool = (name: string, input: unknown, signal: AbortSignal) => Promise<ToolResult>;

/**
 * Tool calls for code run outside its tool's own call: a new version's examples, and the examples of the tools that
 * use it. Built from a call (lib/tools/call.ts `codeCalls`), so its inner calls go the one path on the same terms.
 */
export interface CodeCalls {
  /** The tools these calls dispatch against: a new version joins them before its users' examples run. */
  registry: ToolRegistry;
  /** A tool by name, as tools.call finds it. */
  resolve(name: string): Promise<AgentTool | undefined>;
  /** tools.call for the code of the tool named `toolName`. */
  callsAs(toolName: string): CallTool;
  /** The profile's `network:`, which the code run for these calls (examples) is held to as well. */
  network?: DomainRules;
}

export interface ToolRegistry {
  get(name: string): AgentTool | undefined;
  add(tool: AgentTool): void;
  /** The MCP tools the run may use beyond those it was offered: search_tools searches them. */
  mcp?: McpCatalog;
  /** A tool by name for a tool's code to call: one the run has, a library tool of the person's, or an MCP tool. */
  resolve?(ownerId: string, name: string): Promise<AgentTool | undefined>;
}

export type ToolResult =
  | {
      ok: true;
      output: unknown;
      truncated?: boolean;
      registered?: RegisteredToolView;
      /** A Python tool's value as Python prints it (str()), for SEAT's `output` (lib/seat). */
      text?: string;
      /** Images for people to see beside `output` (an MCP tool's, a chart a tool drew); the model reads a line. */
      images?: ToolImage[];
      /** What the tool's code printed: on the card, and for the model after the output. */
      logs?: string[];
      /** Files the call wrote or changed in the workspace (now the conversation's), deleted, or wrote past a limit. */
      files?: WrittenFile[];
      deletedFiles?: string[];
      refusedFiles?: string[];
    }
  | {
      ok: false;
      error: string;
      cancelled?: boolean;
      /** Refused by a policy (the profile's or the app's) before it acted: the audit log says refused, `error` why. */
      refused?: true;
      rejected?: ToolRejection;
    };

/** A registration that was refused: what the code policy found, or how the examples went. */
export interface ToolRejection {
  name: string;
  language: ToolLanguage;
  code: string;
  violations: Violation[];
  failures?: ExampleOutcome[];
}

/** The model's arguments, checked against the tool's schema: typed input, or what is wrong with them. */
export type InputCheck<Input> = { ok: true; input: Input } | { ok: false; problems: string[] };

export interface AgentTool<Input = unknown> {
  name: string;
  description: string;
  /** What the model is shown. */
  parametersSchema: JSONSchema7;
  /** Runs alone, before the step's other calls, because it changes the tool set they dispatch against. */
  changesToolset?: boolean;
  /** The stored version behind a registered tool. */
  versionId?: string;
  /** The MCP server whose tool this is (lib/tools/mcp-tools.ts): the trace and the spans say which one answered. */
  mcpServer?: string;
  /** A person is asked before each call, whatever the profile's `approval` lists (an MCP tool that may change things). */
  asksApproval?: boolean;
  /** Reads or writes the conversation's workspace: it is synced around each call (lib/tools/call.ts). */
  usesWorkspace?: boolean;
  parse(input: unknown): InputCheck<Input>;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}
