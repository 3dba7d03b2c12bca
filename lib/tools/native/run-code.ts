import { z } from "zod";
import { runInSandbox, type ToolSource } from "@/lib/sandbox";
import { defineTool } from "@/lib/tools/define-tool";
import { consoleLines, sandboxFailure } from "@/lib/tools/output";
import type { ToolResult } from "@/lib/tools/types";

/** A snippet's run as run_code and run_python answer it: its last value and what it printed. */
export async function runSnippet(source: ToolSource, signal: AbortSignal): Promise<ToolResult> {
  const result = await runInSandbox("snippet", source, undefined, signal);
  if (!result.ok) return sandboxFailure(result);
  return {
    ok: true,
    output: { value: result.output ?? null, console: consoleLines(result) },
    truncated: result.outputTruncated,
  };
}

export const runCode = defineTool({
  name: "run_code",
  description:
    "Run a JavaScript snippet in the sandbox and get back its value (the last expression; a promise is awaited) " +
    "and its console output. Use it to try code before registering it as a tool. Same rules as tool code: " +
    "no require/import/process/eval; fetch(url) reaches public http(s) hosts only.",
  inputSchema: z.strictObject({ code: z.string().describe("JavaScript source, e.g. `[1,2,3].map(x => x * 2)`.") }),
  execute: ({ code }, { signal }) => runSnippet({ language: "javascript", code }, signal),
});
