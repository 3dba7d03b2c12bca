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

const reserved: ReadonlySet<string> = new Set(BUILTIN_TOOL_NAMES);

/** Whether the name is a built-in tool's, and so reserved. */
export const isBuiltinName = (name: string): name is BuiltinToolName => reserved.has(name);
