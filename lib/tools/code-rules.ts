import { pythonPolicy } from "@/lib/sandbox/policy";
import { config } from "@/lib/settings/config";

/*
 * What Python code may do, as the model reads it: run_python's description, the tool writer's prompt and
 * register_tool's say the same, so they are written once. The sandbox's policy is what enforces it.
 */

const { timeoutMs, memoryBytes } = config.sandbox;

/** How Python values come back (lib/sandbox/python/harness.py converts them so). */
export const PYTHON_JSON_VALUES =
  "tuples and sets come back as lists, dates as ISO strings, a DataFrame as its records, numpy values as numbers " +
  "and lists; turn a Decimal or Fraction into str() or float()";

/** The Python sandbox: what is there, what is refused, and the limits of one call. */
export const PYTHON_SANDBOX_RULES =
  `Python 3 (CPython) in a fresh process per call, without host access: import only ` +
  `${pythonPolicy.allowedModules.join(", ")} (and their submodules: matplotlib.pyplot, urllib.parse); requests ` +
  "and urllib reach public web hosts only; a chart left open or passed to plt.show() is shown to the person; the " +
  'conversation\'s files are in /mnt/data (pd.read_csv("/mnt/data/sales.csv")), and what the code writes there ' +
  '(df.to_csv("/mnt/data/report.csv"), plt.savefig("/mnt/data/chart.png")) becomes a file the person can download; no ' +
  `name or attribute starting with _; no ${pythonPolicy.bannedNames.join("/")}. Limits per call: ${timeoutMs} ms, ` +
  `${memoryBytes / 1024 / 1024} MB of memory.`;

/** How a Python tool calls another tool (lib/sandbox/python/harness.py's `tools`; the check of `uses` in it too). */
export const PYTHON_TOOLS_CALL =
  "`tools.call(name, input)` calls another of your tools (a library or MCP tool, or a built-in this profile allows) " +
  "and returns its output as Python values; it is synchronous (no await) and raises `tools.ToolCallError` (catch " +
  'it by that name) with the tool\'s error. Name the tool with a string literal, `tools.call("word_count", ' +
  '{"text": text})`, list every name it calls in `uses`, and use `tools` no other way. Inner calls count against ' +
  "the call's time.";

/** A Python tool's shape and its sandbox. */
export const PYTHON_TOOL_CODE_RULES =
  "Python that defines `def run(inputs):` returning a JSON value (dict with str keys, list, str, int, float, bool " +
  `or None; ${PYTHON_JSON_VALUES}); \`inputs\` is a dict matching parameters_schema (read inputs["name"]). What ` +
  `it prints comes back with its result. ${PYTHON_TOOLS_CALL} It runs as ${PYTHON_SANDBOX_RULES}`;
