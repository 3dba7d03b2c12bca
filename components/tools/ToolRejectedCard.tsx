import { ShieldAlert } from "lucide-react";
import type { RejectedTool } from "@/lib/trace/state";
import { CodeBlock } from "@/components/ui/CodeBlock";
import { HighlightCard } from "./HighlightCard";

/** A registration the policy refused: each violation with its place, marked in the code. */
export function ToolRejectedCard({ rejected: { name, code, violations } }: { rejected: RejectedTool }) {
  const marked = new Set(violations.map((violation) => violation.line));
  return (
    <HighlightCard
      tone="rose"
      icon={ShieldAlert}
      label="Tool rejected"
      ariaLabel={`Tool rejected: ${name}`}
      testId="tool-rejected"
      badge={<code className="font-mono text-[13px] font-semibold text-rose-950 dark:text-rose-50">{name}</code>}
    >
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
    </HighlightCard>
  );
}
