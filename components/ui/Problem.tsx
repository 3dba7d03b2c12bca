/** What went wrong, in a sentence, announced at once; nothing when all is well. */
export function Problem({ text }: { text: string | null }) {
  return text ? (
    <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-400">
      {text}
    </p>
  ) : null;
}

/** A form's outcome: what went wrong, announced at once, and what was done, for screen readers only. */
export function FormOutcome({ problem, status }: { problem: string | null; status: string }) {
  return (
    <>
      <Problem text={problem} />
      <p role="status" className="sr-only">
        {status}
      </p>
    </>
  );
}
