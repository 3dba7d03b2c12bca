import { config } from "@/lib/settings/config";

/*
 * What Python code may do, as the model reads it: run_python's description, the tool writer's prompt and
 * register_tool's say the same, so they are written once. The sandbox's policy is what enforces it.
 */

const { timeoutMs, memoryBytes } = config.sandbox;

// TODO(merge main): read these from the Python sandbox's policy data once it lands, instead of repeating them.
const IMPORTS = [
  "math",
  "random",
  "statistics",
  "datetime",
  "itertools",
  "json",
  "re",
  "collections",
  "fractions",
  "decimal",
  "functools",
  "operator",
  "string",
  "textwrap",
  "heapq",
  "bisect",
  "unicodedata",
];
const BANNED = ["exec", "eval", "compile", "open", "getattr", "setattr", "delattr", "globals", "locals", "vars"];

/** The Python sandbox: what is there, what is refused, and the limits of one call. */
export const PYTHON_SANDBOX_RULES =
  `Python 3 with no network, no files and no host access: import only ${IMPORTS.join(", ")}; no name or ` +
  `attribute starting with _; no ${BANNED.join("/")}/input/object/super. Limits per call: ${timeoutMs} ms, ` +
  `${memoryBytes / 1024 / 1024} MB of memory.`;

/** A Python tool's shape and its sandbox. */
export const PYTHON_TOOL_CODE_RULES =
  "Python that defines `def run(inputs):` returning a JSON value (dict with str keys, list, str, int, float, bool " +
  'or None); `inputs` is a dict matching parameters_schema (read inputs["name"]). What it prints comes back with ' +
  `its result. It runs as ${PYTHON_SANDBOX_RULES}`;
