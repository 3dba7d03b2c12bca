"use client";

import { Link2, Loader2, TriangleAlert, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { api, problemText } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";

/**
 * Create, copy and revoke a conversation's read-only link, in a native modal <dialog>: the browser traps focus
 * inside it, closes it on Escape, and gives focus back to the Share button when it closes. It asks for the link
 * once per opening, whatever the page around it renders meanwhile.
 */
export function ShareDialog({ conversationId, onClose }: { conversationId: string; onClose: () => void }) {
  const [url, setUrl] = useState<string | null>(null);
  const [state, setState] = useState<"loading" | "ready" | "working">("loading");
  const [problem, setProblem] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    dialog.current?.showModal();
    let current = true;
    api.shareLink(conversationId).then(
      (link) => current && (setUrl(link?.url ?? null), setState("ready")),
      (error) => current && (setProblem(problemText(error)), setState("ready")),
    );
    return () => {
      current = false;
    };
  }, [conversationId]);

  const act = async (change: () => Promise<{ url: string } | void>) => {
    setState("working");
    setProblem(null);
    try {
      const link = await change();
      setUrl(link ? link.url : null);
    } catch (error) {
      setProblem(problemText(error));
    }
    setState("ready");
  };

  return (
    <dialog
      ref={dialog}
      aria-labelledby="share-title"
      onClose={onClose}
      // A click on the backdrop lands on the dialog element itself.
      onClick={(event) => event.target === dialog.current && dialog.current.close()}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl border border-zinc-200 bg-white p-5 text-zinc-900 shadow-2xl backdrop:bg-black/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="flex items-center gap-2">
        <Link2 className="size-5 text-emerald-600" aria-hidden />
        <h2 id="share-title" className="text-base font-semibold">
          Share this conversation
        </h2>
        <Button
          variant="quiet"
          size="icon"
          onClick={() => dialog.current?.close()}
          aria-label="Close"
          className="ml-auto"
        >
          <X className="size-4" aria-hidden />
        </Button>
      </div>
      <p className="mt-3 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950/40 dark:text-amber-100">
        <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
        <span>
          Anyone with the link sees the whole conversation: your messages, the agent&apos;s reasoning trace, tool code
          and outputs. Revoking the link cuts access at once.
        </span>
      </p>
      {state === "loading" ? (
        <Loader2 className="mx-auto mt-4 size-5 animate-spin text-zinc-500" aria-label="Loading" />
      ) : url ? (
        <div className="mt-4 space-y-3">
          <div className="flex items-center gap-2 rounded-lg border border-zinc-300 bg-zinc-50 px-2 py-1 dark:border-zinc-700 dark:bg-zinc-950">
            <input
              readOnly
              value={url}
              aria-label="Share link"
              data-testid="share-url"
              onFocus={(event) => event.target.select()}
              className="min-w-0 flex-1 bg-transparent font-mono text-xs outline-none"
            />
            <CopyButton text={url} label="Copy link" />
          </div>
          <button
            type="button"
            disabled={state === "working"}
            onClick={() => void act(() => api.revokeShareLink(conversationId))}
            className="text-sm font-medium text-rose-700 hover:underline disabled:opacity-50 dark:text-rose-400"
          >
            Revoke link
          </button>
        </div>
      ) : (
        <Button
          variant="primary"
          disabled={state === "working"}
          onClick={() => void act(() => api.createShareLink(conversationId))}
          className="mt-4 w-full justify-center"
        >
          Create link
        </Button>
      )}
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-400">
          {problem}
        </p>
      )}
    </dialog>
  );
}
