import { z } from "zod";
import { runInSandbox, type ToolSource } from "@/lib/sandbox";
import { defineTool } from "@/lib/tools/define-tool";
import { codeWorkspace } from "@/lib/files/code-files";
import { consoleLines, sandboxFailure } from "@/lib/tools/output";
import type { ToolContext, ToolResult } from "@/lib/tools/types";

/**
 * A snippet's run as run_code and run_python answer it: its last value and what it printed (both in the output,
 * the shape the design notes' run_python has), and the figures it drew. Its requests follow the profile's network.
 */
export async function runSnippet(
  source: ToolSource,
  { signal, network, workspace }: Pick<ToolContext, "signal" | "network" | "workspace">,
): Promise<ToolResult> {
  const result = await runInSandbox("snippet", source, undefined, signal, {
    network,
    ...(workspace && { workspace: codeWorkspace(workspace) }),
  });
  if (!result.ok) return sandboxFailure(result);
  return {
    ok: true,
    output: { value: result.output ?? null, console: consoleLines(result) },
    truncated: result.outputTruncated,
    ...(result.images?.length && { images: result.images }),
  };
}

export const runCode = defineTool({
  name: "run_code",
  usesWorkspace: true,
  description:
    "Run a JavaScript snippet in the sandbox and get back its value (the last expression; a promise is awaited) " +
    "and its console output. Use it to try code before registering it as a tool. Same rules as tool code: " +
    "no require/import/process/eval; fetch(url) reaches public http(s) hosts only.",
  inputSchema: z.strictObject({ code: z.string().describe("JavaScript source, e.g. `[1,2,3].map(x => x * 2)`.") }),
  execute: ({ code }, context) => runSnippet({ language: "javascript", code }, context),
});
