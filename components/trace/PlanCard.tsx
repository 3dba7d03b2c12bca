import { NotebookPen } from "lucide-react";
import { HighlightCard } from "@/components/tools/HighlightCard";

/** The agent's plan, written with think before it acted: a thought to read, not a call to inspect. */
export function PlanCard({ thought }: { thought: string }) {
  return (
    <HighlightCard tone="violet" icon={NotebookPen} label="Plan" ariaLabel="Plan" testId="plan">
      <p className="mt-2 whitespace-pre-wrap break-words text-[13px] leading-relaxed text-violet-950 dark:text-violet-50">
        {thought}
      </p>
    </HighlightCard>
  );
}
