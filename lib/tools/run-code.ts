import { runInSandbox } from "@/lib/sandbox";
import type { AgentTool } from "./types";

export const runCode: AgentTool = {
  name: "run_code",
  description:
    "Run a JavaScript snippet in the sandbox and get back its value (the last expression; a promise is awaited) " +
    "and its console output. Use it to try code before registering it as a tool. Same rules as tool code: " +
    "no require/import/process/eval; fetch(url) reaches public http(s) hosts only.",
  parametersSchema: {
    type: "object",
    properties: { code: { type: "string", description: "JavaScript source, e.g. `[1,2,3].map(x => x * 2)`." } },
    required: ["code"],
    additionalProperties: false,
  },
  async execute(input) {
    const { code } = input as { code: string };
    const result = await runInSandbox("snippet", code);
    const console = result.consoleTruncated ? [...result.logs, "[console output truncated]"] : result.logs;
    if (!result.ok) return { ok: false, error: [result.error!.message, ...console].join("\n") };
    return { ok: true, output: { value: result.output ?? null, console }, truncated: result.outputTruncated };
  },
};
