"use client";

import { Download, FileText } from "lucide-react";
import type { WrittenFile } from "@/lib/contract/events";
import type { ToolCallView } from "@/lib/trace/state";
import { hasThumbnail, humanSize } from "@/lib/files/display";
import { useTraceViewer } from "./TraceContext";

/** What a call did to the conversation's files: each it wrote with a download link (an image shown), and the rest. */
export function WrittenFiles({ call }: { call: ToolCallView }) {
  const viewer = useTraceViewer();
  if (!call.files?.length && !call.deletedFiles?.length && !call.refusedFiles?.length) return null;
  // The owner's route, or the share link's: the same file under the link the reader has.
  const urlOf = (file: WrittenFile) =>
    viewer && "shareToken" in viewer.source
      ? `/api/share/${encodeURIComponent(viewer.source.shareToken)}/files/${encodeURIComponent(file.id)}`
      : `/api/files/${encodeURIComponent(file.id)}`;
  return (
    <section aria-label={`Files the ${call.name} call wrote`} className="space-y-2">
      <span className="text-[11px] font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Files</span>
      <ul className="space-y-2">
        {call.files?.map((file) => (
          <li key={file.id} className="space-y-1">
            <a
              href={`${urlOf(file)}?download=1`}
              download={file.name}
              className="inline-flex items-center gap-1.5 rounded-md border border-zinc-200 px-2 py-1 text-[12px] text-sky-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-zinc-700 dark:text-sky-300"
            >
              {hasThumbnail(file) ? (
                <Download className="size-3.5" aria-hidden />
              ) : (
                <FileText className="size-3.5" aria-hidden />
              )}
              <span className="font-mono">{file.path}</span>
              <span className="text-zinc-600 dark:text-zinc-400">({humanSize(file.size)})</span>
              <span className="sr-only">, download</span>
            </a>
            {hasThumbnail(file) && (
              // eslint-disable-next-line @next/next/no-img-element -- a file of the conversation, served by the API
              <img
                src={urlOf(file)}
                alt={`${file.name}, written by the ${call.name} call`}
                className="max-h-64 max-w-full rounded-md border border-zinc-200 dark:border-zinc-800"
              />
            )}
          </li>
        ))}
        {call.deletedFiles?.map((path) => (
          <li key={path} className="text-[12px] text-zinc-700 dark:text-zinc-300">
            Deleted <span className="font-mono">{path}</span>
          </li>
        ))}
        {call.refusedFiles?.map((reason) => (
          <li key={reason} className="text-[12px] text-amber-900 dark:text-amber-200">
            Not kept: {reason}
          </li>
        ))}
      </ul>
    </section>
  );
}
