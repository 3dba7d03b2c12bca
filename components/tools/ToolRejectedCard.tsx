import { ShieldAlert } from "lucide-react";
import type { Violation } from "@/lib/contract/events";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import type { RejectedTool } from "@/lib/trace/state";
import { CodeBlock } from "@/components/ui/CodeBlock";
import { OutcomeList } from "./Examples";
import { HighlightCard } from "./HighlightCard";
import { LanguageBadge } from "./LanguageBadge";

/**
 * A registration that was refused: each policy violation with its place, marked in the code, or the failed examples.
 * `language` is the registration's (its event carries none).
 */
export function ToolRejectedCard({
  rejected: { name, code, violations, failures },
  language,
}: {
  rejected: RejectedTool;
  language: ToolLanguage;
}) {
  return (
    <HighlightCard
      tone="rose"
      icon={ShieldAlert}
      label="Tool rejected"
      ariaLabel={`Tool rejected: ${name}`}
      testId="tool-rejected"
      badge={
        <>
          <code className="font-mono text-[13px] font-semibold text-rose-950 dark:text-rose-50">{name}</code>
          <LanguageBadge language={language} />
        </>
      }
    >
      <div className="mt-2 text-rose-950 dark:text-rose-100">
        <ViolationList violations={violations} />
        {failures && <OutcomeList outcomes={failures} />}
      </div>
      {code && <MarkedCode code={code} language={language} violations={violations} className="mt-2" />}
    </HighlightCard>
  );
}

/** What the code policy refused, each at its line:column. */
export function ViolationList({ violations }: { violations: Violation[] }) {
  if (violations.length === 0) return null;
  return (
    <ul className="space-y-1 text-sm">
      {violations.map((violation, index) => (
        <li key={index} className="flex gap-2">
          <span className="shrink-0 font-mono text-xs leading-5 text-rose-700 dark:text-rose-300">
            {violation.line}:{violation.column}
          </span>
          <span>{violation.message}</span>
        </li>
      ))}
    </ul>
  );
}

/** Tool code with the lines of its violations marked. */
export function MarkedCode({
  code,
  language,
  violations = [],
  className,
}: {
  code: string;
  language: ToolLanguage;
  violations?: Violation[];
  className?: string;
}) {
  const marked = new Set(violations.map((violation) => violation.line));
  return <CodeBlock code={code} language={language} showLineNumbers markedLines={marked} className={className} />;
}
