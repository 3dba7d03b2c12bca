import { z } from "zod";
import { defineTool } from "@/lib/tools/define-tool";

/** Room for a plan of a few steps; longer is a draft of the work itself, which belongs in the work's own calls. */
export const MAX_THOUGHT_CHARS = 2000;

/** The agent's plan, written down before it acts: it changes nothing, and the trace shows it as a plan card. */
export const think = defineTool({
  name: "think",
  description:
    "Write down a short plan before you act; it changes nothing and only acknowledges. Use it before writing a " +
    "tool (what it takes and returns, which examples prove it) and after a tool fails (why, and what to change).",
  inputSchema: z.strictObject({
    thought: z
      .string()
      .min(1)
      .max(MAX_THOUGHT_CHARS, `at most ${MAX_THOUGHT_CHARS} characters: write the plan, not the work`)
      .describe("The plan, in a few lines."),
  }),
  async execute() {
    return { ok: true, output: "Noted." };
  },
});
