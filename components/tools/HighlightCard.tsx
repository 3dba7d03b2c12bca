import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";

const tones = {
  emerald: {
    card: "border-emerald-300 bg-emerald-50 dark:border-emerald-700/70 dark:bg-emerald-950/40",
    icon: "bg-emerald-600",
    label: "text-emerald-800 dark:text-emerald-300",
  },
  rose: {
    card: "border-rose-300 bg-rose-50 dark:border-rose-800/70 dark:bg-rose-950/40",
    icon: "bg-rose-600",
    label: "text-rose-800 dark:text-rose-300",
  },
  violet: {
    card: "border-violet-300 bg-violet-50 dark:border-violet-800/70 dark:bg-violet-950/40",
    icon: "bg-violet-600",
    label: "text-violet-800 dark:text-violet-300",
  },
} as const;

/**
 * The cards that stand out in a trace: a tool the agent registered (emerald), one the policy rejected (rose), the
 * agent's plan (violet, as its reasoning). Each is named by its label too, never by colour alone.
 */
export function HighlightCard({
  tone,
  icon: Icon,
  label,
  ariaLabel,
  testId,
  badge,
  children,
}: {
  tone: keyof typeof tones;
  icon: LucideIcon;
  label: string;
  ariaLabel: string;
  testId: string;
  badge?: ReactNode;
  children: ReactNode;
}) {
  const style = tones[tone];
  return (
    <section aria-label={ariaLabel} data-testid={testId} className={`rounded-xl border p-3 shadow-sm ${style.card}`}>
      <header className="flex flex-wrap items-center gap-2">
        <span className={`grid size-7 place-items-center rounded-lg text-white shadow-sm ${style.icon}`}>
          <Icon className="size-4" aria-hidden />
        </span>
        <span className={`text-xs font-semibold uppercase tracking-wide ${style.label}`}>{label}</span>
        {badge}
      </header>
      {children}
    </section>
  );
}
