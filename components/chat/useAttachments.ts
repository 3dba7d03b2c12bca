"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { api, FailedRequest, problemText, type ConversationFile } from "@/lib/api/client";

/** A file on its way into the next message: uploading, uploaded (`file`), or refused (`error`). */
export interface Attachment {
  key: string;
  name: string;
  size: number;
  /** The share of the upload sent so far, 0 to 1. */
  progress: number;
  /** What the server stored, once the upload is done. */
  file?: ConversationFile;
  /** Its DELETE is on its way. */
  removing?: boolean;
  /** Why the upload, or removing the uploaded file, failed: the server's sentence. */
  error?: string;
}

/**
 * The files attached to the message being written: each uploads at once, on its own (so one refused file leaves the
 * others), into the conversation `conversationFor` gives, which a new chat creates on its first file.
 */
export function useAttachments(conversationFor: () => Promise<string>) {
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const uploads = useRef(new Map<string, AbortController>());
  const nextKey = useRef(0);

  const update = useCallback(
    (key: string, change: Partial<Attachment>) =>
      setAttachments((list) =>
        list.map((attachment) => (attachment.key === key ? { ...attachment, ...change } : attachment)),
      ),
    [],
  );

  const add = useCallback(
    (files: File[]) => {
      for (const file of files) {
        const key = `attachment-${nextKey.current++}`;
        const controller = new AbortController();
        uploads.current.set(key, controller);
        setAttachments((list) => [...list, { key, name: file.name, size: file.size, progress: 0 }]);
        conversationFor()
          .then((id) =>
            api.uploadFiles(id, [file], {
              onProgress: (progress) => update(key, { progress }),
              signal: controller.signal,
            }),
          )
          .then(
            // The server may have renamed it (made plain, or unique in the conversation).
            ([stored]) => update(key, { file: stored, name: stored.name, size: stored.size, progress: 1 }),
            (error) => {
              if (!controller.signal.aborted) update(key, { error: problemText(error) });
            },
          )
          .finally(() => uploads.current.delete(key));
      }
    },
    [conversationFor, update],
  );

  /** Stop its upload, or delete what was uploaded: the chip goes once the file is gone from the conversation. */
  const remove = useCallback(
    async (attachment: Attachment) => {
      uploads.current.get(attachment.key)?.abort();
      const drop = () => setAttachments((list) => list.filter((item) => item.key !== attachment.key));
      if (!attachment.file) return drop();
      update(attachment.key, { removing: true, error: undefined });
      try {
        await api.deleteFile(attachment.file.id);
        drop();
      } catch (error) {
        // Gone already is what was asked; anything else leaves it stored, so it stays, to be removed again.
        if (error instanceof FailedRequest && error.status === 404) drop();
        else update(attachment.key, { removing: false, error: `It could not be removed: ${problemText(error)}` });
      }
    },
    [update],
  );

  const clear = useCallback(() => setAttachments([]), []);

  // Leaving the page stops what is still uploading.
  useEffect(() => {
    const running = uploads.current;
    return () => running.forEach((controller) => controller.abort());
  }, []);

  return {
    attachments,
    add,
    remove,
    clear,
    uploading: attachments.some((attachment) => !attachment.file && !attachment.error),
    /** What the message attaches when it is sent now. */
    ready: attachments.flatMap((attachment) => (attachment.file && !attachment.removing ? [attachment.file] : [])),
  };
}

export type Attachments = ReturnType<typeof useAttachments>;
