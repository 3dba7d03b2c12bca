"use client";

import { X } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { CHIP, CHIP_COLOURS, FileKindIcon, FileLabel } from "./FileChip";
import type { Attachment } from "./useAttachments";

/** The files the next message attaches, under the message box: each uploading, uploaded, or refused and why. */
export function AttachmentChips({
  attachments,
  onRemove,
}: {
  attachments: Attachment[];
  onRemove: (attachment: Attachment) => void;
}) {
  if (attachments.length === 0) return null;
  return (
    <ul aria-label="Files to attach" className="mt-2 flex flex-wrap gap-2">
      {attachments.map((attachment) => (
        <AttachmentChip key={attachment.key} attachment={attachment} onRemove={() => onRemove(attachment)} />
      ))}
    </ul>
  );
}

function AttachmentChip({ attachment, onRemove }: { attachment: Attachment; onRemove: () => void }) {
  const { name, size, progress, file, removing, error } = attachment;
  const uploading = !file && !error;
  return (
    <li
      className={`${CHIP} max-w-xs flex-col ${error ? "border-rose-300 bg-rose-50 text-zinc-900 dark:border-rose-800 dark:bg-rose-950/50 dark:text-zinc-100" : CHIP_COLOURS} ${removing ? "opacity-60" : ""}`}
      data-testid="attachment"
      data-state={error ? "failed" : uploading ? "uploading" : "uploaded"}
    >
      <span className="flex min-w-0 items-center gap-1.5">
        <FileKindIcon file={file} />
        <FileLabel name={name} size={size} />
        <Button
          variant="quiet"
          size="icon"
          onClick={onRemove}
          disabled={removing}
          aria-label={`Remove ${name}`}
          className="-my-1 -mr-1.5 ml-auto shrink-0"
        >
          <X className="size-3.5" aria-hidden />
        </Button>
      </span>
      {uploading && (
        <progress
          value={progress}
          max={1}
          aria-label={`Uploading ${name}`}
          className="h-1 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700 [&::-moz-progress-bar]:bg-emerald-600 [&::-webkit-progress-bar]:bg-zinc-200 [&::-webkit-progress-value]:bg-emerald-600 dark:[&::-webkit-progress-bar]:bg-zinc-700"
        />
      )}
      {error && (
        <p role="alert" className="text-rose-900 dark:text-rose-100">
          {error}
        </p>
      )}
    </li>
  );
}
