import { Loader2, X } from "lucide-react";
import type { AttemptProblem } from "@/lib/contract/generation";
import { OutcomeList } from "./Examples";
import { MarkedCode, ViolationList } from "./ToolRejectedCard";
import { toolLanguage } from "./tool-language";
import type { AttemptView, GenerationPhase } from "./useToolGeneration";

const problems: Record<AttemptProblem, string> = {
  output: "The answer was not a tool definition",
  name: "The name was refused",
  schema: "The definition was refused",
  uses: "It lists a tool it cannot call",
  secrets: "It names a secret that is not set",
  policy: "The code policy refused the code",
  compile: "The code did not compile",
  examples: "Its examples failed",
};

/** What an attempt is doing, or how it ended (`phase` is the whole generation's): for its line and the live status. */
export function attemptStatus({ attempt, of, tool, failure }: AttemptView, phase: GenerationPhase): string {
  const which = `Attempt ${attempt} of ${of}`;
  if (failure) return `${which} failed: ${problems[failure.problem].toLowerCase()}.`;
  if (phase === "created") return `${which} passed. Opening the new tool's page…`;
  if (phase === "saved") return `${which} passed and the tool was saved, but tools that use it now fail.`;
  if (phase === "cancelled") return `${which} was cancelled.`;
  if (phase === "idle") return `${which} did not finish.`;
  if (tool) return `${which}: checking ${tool.name} and running its examples…`;
  return `${which}: the model is writing the tool…`;
}

/** One attempt: the code the model wrote, then what failed, marked in the code or shown example by example. */
export function GenerationAttempt({ view, phase }: { view: AttemptView; phase: GenerationPhase }) {
  const { attempt, of, tool, failure } = view;
  return (
    <li className="rounded-xl border border-zinc-200 p-3 dark:border-zinc-800" data-testid="generation-attempt">
      <h3 className="text-sm font-semibold">
        Attempt {attempt} of {of}
      </h3>
      {tool && (
        <>
          <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
            <code className="font-mono font-semibold">{tool.name}</code>: {tool.description}
          </p>
          <MarkedCode
            code={tool.code}
            language={toolLanguage(tool)}
            violations={failure?.violations}
            className="mt-2"
          />
        </>
      )}
      {failure ? (
        <div className="mt-2 space-y-2 text-sm" data-testid="attempt-failure">
          <p className="flex items-center gap-1 font-medium text-rose-800 dark:text-rose-300">
            <X className="size-4" aria-hidden /> {problems[failure.problem]}
          </p>
          {failure.violations && <ViolationList violations={failure.violations} />}
          {failure.failures && <OutcomeList outcomes={failure.failures} />}
          {/* Without a list of its own, the message the model is shown is the only account of what failed. */}
          {!failure.violations && !failure.failures && (
            <p className="whitespace-pre-wrap break-words text-zinc-700 dark:text-zinc-300">{failure.message}</p>
          )}
        </div>
      ) : (
        <p className="mt-2 flex items-center gap-1 text-sm text-zinc-600 dark:text-zinc-400">
          {phase === "running" && <Loader2 className="size-4 animate-spin" aria-hidden />} {attemptStatus(view, phase)}
        </p>
      )}
    </li>
  );
}
