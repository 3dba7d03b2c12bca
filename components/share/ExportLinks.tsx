import { Download } from "lucide-react";

/** Download the conversation as Markdown or JSON, from the owner's or the share endpoint. */
export function ExportLinks({ base }: { base: string }) {
  const link = "inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";
  return (
    <span className="flex items-center" aria-label="Export">
      <a href={`${base}/export?format=md`} className={link} download title="Export as Markdown">
        <Download className="size-4" aria-hidden /> <span className="hidden sm:inline">Markdown</span>
        <span className="sr-only sm:hidden">Export as Markdown</span>
      </a>
      <a href={`${base}/export?format=json`} className={link} download title="Export as JSON">
        <span className="hidden sm:inline">JSON</span>
        <span className="sr-only sm:hidden">Export as JSON</span>
      </a>
    </span>
  );
}
