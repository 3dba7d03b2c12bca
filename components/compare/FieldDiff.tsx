import type { FieldComparison, Segment } from "@/lib/trace/compare";

/** A "Differs" badge: the difference is said in words, not by colour alone. */
export function DiffersBadge({ children = "Differs" }: { children?: React.ReactNode }) {
  return (
    <span className="rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide text-amber-950 dark:bg-amber-900/50 dark:text-amber-100">
      {children}
    </span>
  );
}

/** One side of a field: its text, with the parts the other side does not have marked. */
export function FieldText({ segments }: { segments: Segment[] }) {
  return (
    <pre className="whitespace-pre-wrap break-words rounded-md bg-zinc-50 px-2 py-1.5 font-mono text-[12px] leading-5 text-zinc-800 dark:bg-zinc-900 dark:text-zinc-200">
      {segments.map((segment, index) =>
        segment.changed ? (
          <mark
            key={index}
            className="rounded-sm bg-amber-200 text-amber-950 underline decoration-amber-700 decoration-dotted underline-offset-2 dark:bg-amber-700/60 dark:text-amber-50"
          >
            {segment.text}
          </mark>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </pre>
  );
}

/** A field of a call on one side: its name, whether it differs from the other side's, and its text. */
export function FieldDiff({ name, field, side }: { name: string; field: FieldComparison; side: "left" | "right" }) {
  return (
    <div data-testid="compare-field" data-field={name} data-differs={field.differs}>
      <div className="mb-0.5 flex items-center gap-1.5 text-[11px] font-medium text-zinc-600 dark:text-zinc-400">
        {name}
        {field.differs && <DiffersBadge />}
      </div>
      <FieldText segments={field[side]} />
    </div>
  );
}
