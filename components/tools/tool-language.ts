import type { ToolLanguage } from "@/lib/sandbox/languages";

/** Each tool language as a person reads it. */
export const LANGUAGE_NAMES: Record<ToolLanguage, string> = { javascript: "JavaScript", python: "Python" };

/** The choices of a language picker, the default first. */
export const TOOL_LANGUAGES = Object.keys(LANGUAGE_NAMES) as ToolLanguage[];

/**
 * The language of a tool's code (a tool, one of its versions, a registered or a written tool). Absent, it is
 * JavaScript: every tool and log from before Python was.
 */
export function toolLanguage(tool: { code: string; language?: ToolLanguage }): ToolLanguage {
  return tool.language ?? "javascript";
}

/**
 * The language of the code in a register_tool call's input, for a refused registration, whose event carries none:
 * Python given as `python_code` (the tool-registration PR's form) or as `code` with `language: "python"`.
 */
export function registrationLanguage(input: unknown): ToolLanguage {
  if (typeof input !== "object" || input === null) return "javascript";
  const { language, python_code } = input as { language?: unknown; python_code?: unknown };
  return language === "python" || typeof python_code === "string" ? "python" : "javascript";
}
