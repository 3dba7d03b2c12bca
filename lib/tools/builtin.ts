import { calculate } from "@/lib/tools/native/calculate";
import { fetchUrl } from "@/lib/tools/native/fetch-url";
import { listDir, readFile, writeFile } from "@/lib/tools/native/files";
import { keyValueDelete, keyValueGet, keyValueSet } from "@/lib/tools/native/key-value";
import { librarianGet, librarianQuery, librarianSearch, librarianStore } from "@/lib/tools/native/librarian";
import { registerTool } from "@/lib/tools/library/register-tool";
import { runCode } from "@/lib/tools/native/run-code";
import { runPython } from "@/lib/tools/native/run-python";
import { runCommand } from "@/lib/tools/native/run-command";
import { searchTools } from "@/lib/tools/library/search-tools";
import { sendEmail } from "@/lib/tools/native/send-email";
import { think } from "@/lib/tools/native/think";
import { webSearch } from "@/lib/tools/native/web-search";
import { webhook } from "@/lib/tools/native/webhook";
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from "./names";
import type { AgentTool } from "./types";

/** Each built-in name's tool: a name without a tool (or a tool without a name in names.ts) does not compile. */
const byName: { readonly [Name in BuiltinToolName]: AgentTool } = {
  think,
  register_tool: registerTool,
  search_tools: searchTools,
  calculate,
  run_code: runCode,
  run_python: runPython,
  fetch_url: fetchUrl,
  key_value_get: keyValueGet,
  key_value_set: keyValueSet,
  key_value_delete: keyValueDelete,
  read_file: readFile,
  write_file: writeFile,
  list_dir: listDir,
  webhook,
  run_command: runCommand,
  web_search: webSearch,
  send_email: sendEmail,
  librarian_store: librarianStore,
  librarian_get: librarianGet,
  librarian_query: librarianQuery,
  librarian_search: librarianSearch,
};

/** The built-in and native tools, in the order of names.ts; a run is offered those its profile allows. */
export const builtinTools: readonly AgentTool[] = BUILTIN_TOOL_NAMES.map((name) => byName[name]);
