import { Check, FlaskConical, X } from "lucide-react";
import type { ExampleOutcome, ToolExample } from "@/lib/contract/events";

/** One line of JSON: examples are small, and read best as `input → output`. */
const compact = (value: unknown) => JSON.stringify(value ?? null);

/** A tool (version) without examples: nothing has checked what it returns. */
export function UntestedBadge() {
  return (
    <span
      className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-950 dark:bg-amber-900/60 dark:text-amber-100"
      data-testid="untested"
    >
      <FlaskConical className="size-3" aria-hidden /> Untested
    </span>
  );
}

/** The examples a version passed when it was accepted, each `input → expected output`. */
export function ExampleList({ examples }: { examples: ToolExample[] }) {
  return (
    <ul aria-label="Examples" className="space-y-1" data-testid="examples">
      {examples.map((example, index) => (
        <li key={index} className="flex items-start gap-1.5">
          <Check
            role="img"
            aria-label="Passed"
            className="mt-0.5 size-4 shrink-0 text-emerald-700 dark:text-emerald-400"
          />
          <code className="min-w-0 break-all font-mono text-xs leading-5">
            {compact(example.input)} <span aria-hidden>→</span> <span className="sr-only">gives</span>{" "}
            {compact(example.expected_output)}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** How each example went, in words as well as colour; a failed one says what came instead, or the error. */
export function OutcomeList({ outcomes }: { outcomes: ExampleOutcome[] }) {
  return (
    <ul className="space-y-2" data-testid="example-outcomes">
      {outcomes.map((outcome, index) => (
        <li key={index} className="text-sm">
          <span
            className={`inline-flex items-center gap-1 font-medium ${outcome.passed ? "text-emerald-800 dark:text-emerald-300" : "text-rose-800 dark:text-rose-300"}`}
          >
            {outcome.passed ? <Check className="size-4" aria-hidden /> : <X className="size-4" aria-hidden />}
            {outcome.passed ? "Passed" : "Failed"}
          </span>
          <dl className="mt-0.5 grid grid-cols-[auto_1fr] gap-x-3 font-mono text-xs leading-5">
            <Entry term="input" value={compact(outcome.input)} />
            <Entry term="expected" value={compact(outcome.expected_output)} />
            {!outcome.passed &&
              (outcome.error === undefined ? (
                <Entry term="actual" value={compact(outcome.actual_output)} />
              ) : (
                <Entry term="error" value={outcome.error} />
              ))}
          </dl>
        </li>
      ))}
    </ul>
  );
}

function Entry({ term, value }: { term: string; value: string }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{term}</dt>
      <dd className="min-w-0 whitespace-pre-wrap break-all">{value}</dd>
    </>
  );
}
