/** What went wrong, in a sentence, announced at once; nothing when all is well. */
export function Problem({ text }: { text: string | null }) {
  return text ? (
    <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-400">
      {text}
    </p>
  ) : null;
}
