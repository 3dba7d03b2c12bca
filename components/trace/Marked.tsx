/** `text` with each occurrence of `mark` (case-insensitive) in a <mark>; `text` as it is when `mark` is empty. */
export function Marked({ text, mark }: { text: string; mark: string }) {
  const lower = text.toLowerCase();
  const needle = mark.toLowerCase();
  // Lower-casing changes the length of a few characters (İ): then positions in `lower` are not those in `text`.
  if (!needle || lower.length !== text.length) return text;
  const parts: React.ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    parts.push(text.slice(from, at));
    parts.push(
      <mark key={at} className="rounded-sm bg-amber-200 text-inherit dark:bg-amber-400/40">
        {text.slice(at, at + needle.length)}
      </mark>,
    );
    from = at + needle.length;
  }
  parts.push(text.slice(from));
  return <>{parts}</>;
}
