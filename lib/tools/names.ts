/**
 * The names of the built-in and native tools: the one list that profiles, the built-in table (builtin.ts) and the
 * reserved-name check read. No registered tool may take one of them.
 */
export const BUILTIN_TOOL_NAMES = [
  "think",
  "register_tool",
  "search_tools",
  "calculate",
  "run_code",
  "run_python",
  "fetch_url",
  "key_value_get",
  "key_value_set",
  "key_value_delete",
  "read_file",
  "write_file",
  "list_dir",
  "webhook",
  "run_command",
  "web_search",
  "send_email",
  "librarian_store",
  "librarian_get",
  "librarian_query",
  "librarian_search",
] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

const builtin: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

/** Whether the name is a built-in tool's. */
export const isBuiltinName = (name: string): name is BuiltinToolName => builtin.has(name);

/** The tools of a run that plans first (lib/agent/plan.ts): the loop answers them, so no tool may take their names. */
export const RUN_PLAN_TOOL_NAMES = ["plan", "update_plan"] as const;

/** Whether no registered tool may take the name: a built-in's, or a plan tool's. */
export const isReservedName = (name: string): boolean =>
  isBuiltinName(name) || (RUN_PLAN_TOOL_NAMES as readonly string[]).includes(name);
