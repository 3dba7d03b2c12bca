import { ArrowDown } from "lucide-react";

export function JumpToLatest({ onClick }: { onClick: () => void }) {
  return (
    <button
      type="button"
      onClick={onClick}
      className="absolute bottom-4 left-1/2 z-10 inline-flex -translate-x-1/2 items-center gap-1 rounded-full border border-zinc-200 bg-white/95 px-3 py-1.5 text-xs font-medium text-zinc-700 shadow-md backdrop-blur hover:bg-white dark:border-zinc-700 dark:bg-zinc-900/95 dark:text-zinc-200"
    >
      <ArrowDown className="size-3.5" aria-hidden /> Jump to latest
    </button>
  );
}
