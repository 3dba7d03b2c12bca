"use client";

import { ArrowUp, Paperclip, Square } from "lucide-react";
import { forwardRef, useImperativeHandle, useRef, useState, type ClipboardEvent, type KeyboardEvent } from "react";
import type { ConversationFile } from "@/lib/api/client";
import { AttachmentChips } from "./Attachments";
import type { Attachments } from "./useAttachments";

export interface ProfileChoice {
  names: string[];
  current: string;
  onChange: (name: string) => void;
}

interface ComposerProps {
  /** The agent profile the conversation's runs use, shown and chosen here. */
  profile?: ProfileChoice;
  /** The "Plan first" switch: the run writes a plan first, a checklist it keeps current. */
  planFirst?: { on: boolean; onChange: (on: boolean) => void };
  running: boolean;
  disabled?: boolean;
  /** The files the message attaches: chosen with the paperclip, pasted, or dropped on the chat. */
  attachments: Attachments;
  onSend: (content: string, files: ConversationFile[], plan?: boolean) => Promise<boolean>;
  onStop: () => void;
}

/** Enter sends, Shift+Enter starts a new line; a message waits for its files to be uploaded. */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  { profile, planFirst, running, disabled, attachments, onSend, onStop },
  ref,
) {
  const [text, setText] = useState("");
  const textarea = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(ref, () => textarea.current!, []);
  const picker = useRef<HTMLInputElement>(null);
  const canSend = Boolean(text.trim()) && !disabled && !attachments.uploading;
  const send = async () => {
    const content = text.trim();
    if (!canSend || running) return;
    setText("");
    if (await onSend(content, attachments.ready, planFirst?.on)) attachments.clear();
    else setText(content);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  // Pasted files (a copied image, files copied in a file manager) are attached; pasted text is typed as usual.
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...event.clipboardData.files];
    if (files.length === 0) return;
    event.preventDefault();
    attachments.add(files);
  };
  return (
    <form
      className="mx-auto w-full max-w-3xl px-4 pb-4"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <div className="flex items-end gap-2 rounded-2xl border border-zinc-300 bg-white p-2 shadow-sm focus-within:border-zinc-400 focus-within:ring-4 focus-within:ring-zinc-200/60 dark:border-zinc-700 dark:bg-zinc-900 dark:focus-within:ring-zinc-800">
        <button
          type="button"
          onClick={() => picker.current?.click()}
          disabled={disabled}
          aria-label="Attach files"
          className="grid size-10 shrink-0 place-items-center rounded-xl text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-600 disabled:opacity-60 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          <Paperclip className="size-5" aria-hidden />
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          onChange={(event) => {
            attachments.add([...(event.target.files ?? [])]);
            // Emptied, so that choosing the same file again is a change too.
            event.target.value = "";
          }}
          data-testid="attach-input"
        />
        <label htmlFor="composer" className="sr-only">
          Message
        </label>
        <textarea
          id="composer"
          ref={textarea}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          rows={1}
          placeholder="Ask for something no tool does yet…"
          className="max-h-48 min-h-10 flex-1 resize-none bg-transparent px-2 py-2 text-[15px] text-zinc-900 outline-none [field-sizing:content] placeholder:text-zinc-400 dark:text-zinc-100"
        />
        {running ? (
          <button
            type="button"
            onClick={onStop}
            aria-label="Stop the run"
            className="grid size-10 shrink-0 place-items-center rounded-xl bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900"
          >
            <Square className="size-4 fill-current" aria-hidden />
          </button>
        ) : (
          <button
            type="submit"
            disabled={!canSend}
            aria-label="Send"
            className="grid size-10 shrink-0 place-items-center rounded-xl bg-emerald-600 text-white hover:bg-emerald-700 disabled:bg-zinc-300 dark:disabled:bg-zinc-700"
          >
            <ArrowUp className="size-5" aria-hidden />
          </button>
        )}
      </div>
      <AttachmentChips
        attachments={attachments.attachments}
        onRemove={(attachment) => {
          // The chip and its button go: the message box keeps the focus.
          textarea.current?.focus();
          void attachments.remove(attachment);
        }}
      />
      <div className="mt-1.5 flex flex-wrap items-center justify-center gap-x-3 gap-y-1 text-xs text-zinc-600 dark:text-zinc-400">
        {profile && (
          <label className="inline-flex items-center gap-1">
            Profile
            <select
              value={profile.current}
              onChange={(event) => profile.onChange(event.target.value)}
              disabled={running}
              data-testid="profile-select"
              className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-xs text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
            >
              {profile.names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        )}
        {planFirst && (
          <label className="inline-flex items-center gap-1.5">
            <input
              type="checkbox"
              role="switch"
              checked={planFirst.on}
              onChange={(event) => planFirst.onChange(event.target.checked)}
              data-testid="plan-first"
              className="size-3.5 accent-violet-700"
            />
            Plan first
          </label>
        )}
        <p>
          {attachments.uploading
            ? "The message can be sent once its files are uploaded"
            : "Enter to send · Shift+Enter for a new line · Ctrl+Shift+O for a new chat"}
        </p>
      </div>
    </form>
  );
});
