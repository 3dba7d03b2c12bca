"use client";

import { Link2, Loader2, TriangleAlert } from "lucide-react";
import { useEffect, useState } from "react";
import { api, problemText } from "@/lib/api/client";
import type { ShareLink } from "@/lib/contract/responses";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { ModalDialog } from "@/components/ui/ModalDialog";

/**
 * Create, copy and revoke a conversation's read-only link, in a native modal <dialog>: the browser traps focus
 * inside it, closes it on Escape, and gives focus back to the Share button when it closes. It asks for the link
 * once per opening, whatever the page around it renders meanwhile.
 */
export function ShareDialog({
  conversationId,
  accountsOn = false,
  onClose,
}: {
  conversationId: string;
  accountsOn?: boolean;
  onClose: () => void;
}) {
  const [url, setUrl] = useState<string | null>(null);
  const [visibility, setVisibility] = useState<ShareLink["visibility"]>("anyone");
  const [state, setState] = useState<"loading" | "ready" | "working">("loading");
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    api.shareLink(conversationId).then(
      (link) => current && (setUrl(link?.url ?? null), link && setVisibility(link.visibility), setState("ready")),
      (error) => current && (setProblem(problemText(error)), setState("ready")),
    );
    return () => {
      current = false;
    };
  }, [conversationId]);

  // With a link, a new choice changes the link's visibility at once (same token); without one, it is the new link's.
  const choose = (next: ShareLink["visibility"]) => {
    setVisibility(next);
    if (url) void act(() => api.createShareLink(conversationId, next));
  };

  const act = async (change: () => Promise<ShareLink | void>) => {
    setState("working");
    setProblem(null);
    try {
      const link = await change();
      setUrl(link ? link.url : null);
      if (link) setVisibility(link.visibility);
    } catch (error) {
      setProblem(problemText(error));
    }
    setState("ready");
  };

  return (
    <ModalDialog
      icon={<Link2 className="size-5 text-emerald-600" aria-hidden />}
      title="Share this conversation"
      onClose={onClose}
    >
      <p className="mt-3 flex gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950/40 dark:text-amber-100">
        <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden />
        <span>
          Anyone with the link sees the whole conversation: your messages, the agent&apos;s reasoning trace, tool code
          and outputs. Revoking the link cuts access at once.
        </span>
      </p>
      {accountsOn && state !== "loading" && (
        <fieldset className="mt-4" aria-describedby="share-visibility-help" data-testid="share-visibility">
          <legend className="text-sm font-medium">Who can open the link</legend>
          <p id="share-visibility-help" className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            Members must sign in to this server first; others see only a sign-in prompt.
          </p>
          {(
            [
              ["anyone", "Anyone with the link"],
              ["members", "Members of this server only"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="mt-2 flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="share-visibility"
                value={value}
                checked={visibility === value}
                disabled={state === "working"}
                onChange={() => choose(value)}
                className="accent-emerald-700"
              />
              {label}
            </label>
          ))}
        </fieldset>
      )}
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
          onClick={() => void act(() => api.createShareLink(conversationId, visibility))}
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
    </ModalDialog>
  );
}
