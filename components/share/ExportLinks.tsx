import { Download } from "lucide-react";
import { api, type ConversationSource } from "@/lib/api/client";

/** Download the conversation as Markdown or JSON, from the owner's or the share endpoint. */
export function ExportLinks({ source }: { source: ConversationSource }) {
  const link =
    "inline-flex items-center gap-1 rounded-md px-2 py-1.5 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";
  return (
    <span className="flex items-center" aria-label="Export">
      <a href={api.exportUrl(source, "md")} className={link} download title="Export as Markdown">
        <Download className="size-4" aria-hidden /> <span className="hidden sm:inline">Markdown</span>
        <span className="sr-only sm:hidden">Export as Markdown</span>
      </a>
      <a href={api.exportUrl(source, "json")} className={link} download title="Export as JSON">
        <span className="hidden sm:inline">JSON</span>
        <span className="sr-only sm:hidden">Export as JSON</span>
      </a>
    </span>
  );
}
