import { Wrench } from "lucide-react";

const EXAMPLES = [
  {
    title: "Count word frequencies",
    prompt:
      "Build a tool that returns the 5 most frequent words in a text, then use it on: 'the cat and the hat and the bat sat on the mat'.",
  },
  {
    title: "Roman numerals",
    prompt: "Make a tool that converts numbers to Roman numerals and convert 1994, 2024 and 3999.",
  },
  {
    title: "Dates between",
    prompt:
      "Create a tool that counts the weekdays between two dates, and tell me how many there are between 2026-01-01 and 2026-03-31.",
  },
  {
    title: "Check a password policy",
    prompt:
      "Write a tool that scores password strength (length, classes, repeats) and rate 'hunter2', 'Tr0ub4dor&3' and 'correct horse battery staple'.",
  },
];

export function EmptyState({ onPick }: { onPick: (prompt: string) => void }) {
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-1 flex-col items-center justify-center gap-8 px-4 py-10">
      <div className="text-center">
        <span className="mx-auto mb-4 grid size-12 place-items-center rounded-2xl bg-gradient-to-br from-emerald-500 to-teal-600 text-white shadow-lg">
          <Wrench className="size-6" aria-hidden />
        </span>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900 dark:text-zinc-50">What should we build?</h1>
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">
          The agent writes the tools it lacks, checks them, runs them in a sandbox — and shows you every step.
        </p>
      </div>
      <ul className="grid w-full gap-3 sm:grid-cols-2" aria-label="Example prompts">
        {EXAMPLES.map((example) => (
          <li key={example.title}>
            <button
              type="button"
              onClick={() => onPick(example.prompt)}
              className="h-full w-full rounded-xl border border-zinc-200 bg-white p-4 text-left shadow-sm transition hover:-translate-y-0.5 hover:border-emerald-300 hover:shadow-md dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-emerald-700"
            >
              <span className="block text-sm font-medium text-zinc-900 dark:text-zinc-100">{example.title}</span>
              <span className="mt-1 line-clamp-2 block text-xs text-zinc-500 dark:text-zinc-400">{example.prompt}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
