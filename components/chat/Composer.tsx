"use client";

import { ArrowUp, Square } from "lucide-react";
import { forwardRef, useState, type KeyboardEvent } from "react";

export interface ProfileChoice {
  names: string[];
  current: string;
  onChange: (name: string) => void;
}

interface ComposerProps {
  /** The agent profile the conversation's runs use, shown and chosen here. */
  profile?: ProfileChoice;
  running: boolean;
  disabled?: boolean;
  onSend: (content: string) => Promise<boolean>;
  onStop: () => void;
}

/** Enter sends, Shift+Enter starts a new line. */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  { profile, running, disabled, onSend, onStop },
  ref,
) {
  const [text, setText] = useState("");
  const send = async () => {
    const content = text.trim();
    if (!content || running || disabled) return;
    setText("");
    if (!(await onSend(content))) setText(content);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
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
        <label htmlFor="composer" className="sr-only">
          Message
        </label>
        <textarea
          id="composer"
          ref={ref}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
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
            disabled={!text.trim() || disabled}
            aria-label="Send"
            className="grid size-10 shrink-0 place-items-center rounded-xl bg-emerald-600 text-white hover:bg-emerald-700 disabled:bg-zinc-300 dark:disabled:bg-zinc-700"
          >
            <ArrowUp className="size-5" aria-hidden />
          </button>
        )}
      </div>
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
        <p>Enter to send · Shift+Enter for a new line · Ctrl+Shift+O for a new chat</p>
      </div>
    </form>
  );
});
