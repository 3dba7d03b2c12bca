import { z } from "zod";

/** The languages tool code may be written in. Absent, a tool is JavaScript: every tool before Python was. */
export const ToolLanguage = z.enum(["javascript", "python"]);
export type ToolLanguage = z.infer<typeof ToolLanguage>;

/** Code and the language it is in: what the sandbox checks and runs. */
export interface ToolSource {
  language: ToolLanguage;
  code: string;
}
