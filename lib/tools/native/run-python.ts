import { z } from "zod";
import { PYTHON_JSON_VALUES, PYTHON_SANDBOX_RULES } from "@/lib/tools/code-rules";
import { defineTool } from "@/lib/tools/define-tool";
import { runSnippet } from "./run-code";

/** The design notes' run_python: a snippet in the Python sandbox, answered as run_code answers JavaScript. */
export const runPython = defineTool({
  name: "run_python",
  usesWorkspace: true,
  description:
    "Run a Python snippet in the sandbox and get back the value of its last expression and the lines it printed " +
    `(as JSON: ${PYTHON_JSON_VALUES}). Use it for quick computations (statistics, dates, exact fractions and ` +
    `decimals, text with re) and to try Python before registering it as a tool. ${PYTHON_SANDBOX_RULES}`,
  inputSchema: z.strictObject({
    code: z
      .string()
      .describe('Python source, e.g. "import statistics\\nprint(statistics.mean([1, 2, 4]))\\nsorted({3, 1, 2})".'),
  }),
  execute: ({ code }, context) => runSnippet({ language: "python", code }, context),
});
