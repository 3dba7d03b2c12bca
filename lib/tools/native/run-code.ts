import { z } from "zod";
import { runInSandbox } from "@/lib/sandbox";
import { defineTool } from "@/lib/tools/define-tool";
import { sandboxFailure } from "@/lib/tools/output";

export const runCode = defineTool({
  name: "run_code",
  description:
    "Run a JavaScript snippet in the sandbox and get back its value (the last expression; a promise is awaited) " +
    "and its console output. Use it to try code before registering it as a tool. Same rules as tool code: " +
    "no require/import/process/eval; fetch(url) reaches public http(s) hosts only.",
  inputSchema: z.strictObject({ code: z.string().describe("JavaScript source, e.g. `[1,2,3].map(x => x * 2)`.") }),
  async execute({ code }, { signal }) {
    const result = await runInSandbox("snippet", { language: "javascript", code }, undefined, signal);
    if (!result.ok) return sandboxFailure(result);
    const console = result.consoleTruncated ? [...result.logs, "[console output truncated]"] : result.logs;
    return { ok: true, output: { value: result.output ?? null, console }, truncated: result.outputTruncated };
  },
});
