"use client";

import { File as FileIcon, FileImage, FileSpreadsheet, FileText } from "lucide-react";
import { useState } from "react";
import type { ConversationFile } from "@/lib/api/client";
import { CsvPreview } from "./CsvPreview";
import { hasThumbnail, humanSize, isCsv } from "@/lib/files/display";

/** A chip's frame; its colours are CHIP_COLOURS, unless it is a refused file's. */
export const CHIP = "inline-flex min-w-0 gap-1.5 rounded-lg border px-2.5 py-1.5 text-xs";
export const CHIP_COLOURS =
  "border-zinc-200 bg-white text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200";
const ACTIONABLE =
  "hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:hover:bg-zinc-800";

/** A file's kind at a glance; a file not stored yet (its type unknown) is a plain page. */
export function FileKindIcon({ file }: { file?: Pick<ConversationFile, "name" | "mimeType"> }) {
  const Icon = !file
    ? FileIcon
    : isCsv(file)
      ? FileSpreadsheet
      : file.mimeType.startsWith("image/")
        ? FileImage
        : file.mimeType.startsWith("text/")
          ? FileText
          : FileIcon;
  return <Icon className="size-4 shrink-0 text-zinc-500 dark:text-zinc-400" aria-hidden />;
}

/** The name, cut short to fit, and the size. */
export function FileLabel({ name, size }: { name: string; size: number }) {
  return (
    <>
      <span className="min-w-0 truncate font-medium">{name}</span>
      <span className="shrink-0 text-zinc-600 dark:text-zinc-400">{humanSize(size)}</span>
    </>
  );
}

/** The files a user message attached, under it. */
export function MessageFiles({ files }: { files: ConversationFile[] }) {
  return (
    <ul aria-label="Attached files" className="ml-auto flex max-w-[85%] flex-wrap justify-end gap-2">
      {files.map((file) => (
        <li key={file.id} className="min-w-0 max-w-full">
          <FileChip file={file} />
        </li>
      ))}
    </ul>
  );
}

/**
 * A stored file: a CSV opens a preview of its first rows, an image shows a thumbnail, and anything else links to its
 * bytes (a new tab, so the chat stays where it was).
 */
function FileChip({ file }: { file: ConversationFile }) {
  const [previewing, setPreviewing] = useState(false);
  if (isCsv(file))
    return (
      <>
        <button
          type="button"
          onClick={() => setPreviewing(true)}
          aria-haspopup="dialog"
          className={`${CHIP} ${CHIP_COLOURS} ${ACTIONABLE} max-w-full items-center`}
          data-testid="message-file"
        >
          <FileKindIcon file={file} />
          <FileLabel name={file.name} size={file.size} />
        </button>
        {previewing && <CsvPreview file={file} onClose={() => setPreviewing(false)} />}
      </>
    );
  return (
    <a
      href={file.url}
      target="_blank"
      rel="noreferrer"
      className={`${CHIP} ${CHIP_COLOURS} ${ACTIONABLE} max-w-full ${hasThumbnail(file) ? "flex-col items-start" : "items-center"}`}
      data-testid="message-file"
    >
      {hasThumbnail(file) && (
        // The link's text names the file, so the picture is decoration (alt="").
        // eslint-disable-next-line @next/next/no-img-element -- a conversation's file, behind its owner's or link's access
        <img src={file.url} alt="" loading="lazy" className="h-20 max-w-40 rounded object-cover" />
      )}
      <span className="flex min-w-0 max-w-full items-center gap-1.5">
        <FileKindIcon file={file} />
        <FileLabel name={file.name} size={file.size} />
      </span>
    </a>
  );
}
