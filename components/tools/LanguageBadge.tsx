import type { ToolLanguage } from "@/lib/sandbox/languages";
import { LANGUAGE_NAMES } from "./tool-language";

/** The language a tool's code is in, in words (a screen reader hears "Language: Python"), on any card's tone. */
export function LanguageBadge({ language }: { language: ToolLanguage }) {
  return (
    <span
      className="rounded-full bg-white/80 px-2 py-0.5 text-xs font-medium text-zinc-800 ring-1 ring-inset ring-zinc-300 dark:bg-zinc-900/70 dark:text-zinc-100 dark:ring-zinc-600"
      data-testid="tool-language"
      data-language={language}
    >
      <span className="sr-only">Language: </span>
      {LANGUAGE_NAMES[language]}
    </span>
  );
}
