import { ShieldAlert } from "lucide-react";
import type { Violation } from "@/lib/sandbox/check";
import { CodeBlock } from "@/components/ui/CodeBlock";

/** A registration the policy refused: each violation with its place, marked in the code. */
export function ToolRejectedCard({ name, violations, code }: { name: string; violations: Violation[]; code?: string }) {
  const marked = new Set(violations.map((violation) => violation.line));
  return (
    <section
      aria-label={`Tool rejected: ${name}`}
      data-testid="tool-rejected"
      className="rounded-xl border border-rose-300 bg-rose-50 p-3 shadow-sm dark:border-rose-800/70 dark:bg-rose-950/40"
    >
      <header className="flex flex-wrap items-center gap-2">
        <span className="grid size-7 place-items-center rounded-lg bg-rose-600 text-white shadow-sm">
          <ShieldAlert className="size-4" aria-hidden />
        </span>
        <span className="text-xs font-semibold uppercase tracking-wide text-rose-800 dark:text-rose-300">Tool rejected</span>
        <code className="font-mono text-[13px] font-semibold text-rose-950 dark:text-rose-50">{name}</code>
      </header>
      <ul className="mt-2 space-y-1 text-sm text-rose-950 dark:text-rose-100">
        {violations.map((violation, index) => (
          <li key={index} className="flex gap-2">
            <span className="shrink-0 font-mono text-xs leading-5 text-rose-700 dark:text-rose-300">
              {violation.line}:{violation.column}
            </span>
            <span>{violation.message}</span>
          </li>
        ))}
      </ul>
      {code && <CodeBlock code={code} language="javascript" showLineNumbers markedLines={marked} className="mt-2" />}
    </section>
  );
}
