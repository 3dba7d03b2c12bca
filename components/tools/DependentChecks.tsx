import { Check, X } from "lucide-react";
import type { DependentCheck } from "@/lib/contract/events";
import { OutcomeList } from "./Examples";

/** Tool names in a sentence; the trace has names only, so they are not links (a name may be built in or MCP's). */
export function ToolNames({ names }: { names: string[] }) {
  return names.map((name, index) => (
    <span key={name}>
      {index > 0 && ", "}
      <code className="font-mono text-[13px] font-semibold">{name}</code>
    </span>
  ));
}

/** The tools that use this one, their examples run again against this version: failures in full, passes in a word. */
export function DependentChecks({ dependents }: { dependents: DependentCheck[] }) {
  const passed = dependents.filter((dependent) => dependent.passed);
  const failed = dependents.filter((dependent) => !dependent.passed);
  return (
    <div className="text-sm" data-testid="dependents">
      <p className="font-medium">The tools that use it, their examples run again against it:</p>
      {failed.map((dependent) => (
        <div key={dependent.id} className="mt-1" data-testid="dependent-failed">
          <p className="inline-flex items-center gap-1 font-medium text-rose-800 dark:text-rose-300">
            <X className="size-4 shrink-0" aria-hidden />
            <span>
              <code className="font-mono">{dependent.name}</code>: {failureCount(dependent)}
            </span>
          </p>
          <div className="ml-5 mt-1">
            <OutcomeList outcomes={dependent.failures} />
          </div>
        </div>
      ))}
      {passed.length > 0 && (
        <p
          className="mt-1 inline-flex items-center gap-1 text-emerald-900 dark:text-emerald-200"
          data-testid="dependents-passed"
        >
          <Check className="size-4 shrink-0" aria-hidden />
          <span>
            Still pass their examples: <ToolNames names={passed.map((dependent) => dependent.name)} />
          </span>
        </p>
      )}
    </div>
  );
}

/** The check reports the failing examples only (not how many passed), so the count is of those. */
function failureCount({ failures }: DependentCheck) {
  return failures.length === 1 ? "1 example now fails" : `${failures.length} examples now fail`;
}
