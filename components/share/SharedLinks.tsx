"use client";

import { ArrowLeft, Link2 } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api, FailedRequest, problemText } from "@/lib/api/client";
import { shareUrl } from "@/lib/share/url";
import { CopyButton } from "@/components/ui/CopyButton";

interface SharedLink {
  token: string;
  visibility: string;
  createdAt: string;
  conversation: { id: string; title: string };
}

/** Every link a person has shared, with a way to revoke each. */
export function SharedLinks({ initial }: { initial: SharedLink[] }) {
  const [links, setLinks] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const revoke = async (link: SharedLink) => {
    try {
      await api.revokeShareLink(link.conversation.id);
    } catch (error) {
      // 404: already revoked elsewhere, which is what was asked.
      if (!(error instanceof FailedRequest && error.status === 404)) return setProblem(problemText(error));
    }
    setLinks((list) => list.filter((item) => item.token !== link.token));
  };
  return (
    <main className="mx-auto max-w-2xl px-4 py-8 text-zinc-900 dark:text-zinc-100">
      <Link
        href="/"
        className="inline-flex items-center gap-1 text-sm text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100"
      >
        <ArrowLeft className="size-4" aria-hidden /> Back to chats
      </Link>
      <h1 className="mt-4 flex items-center gap-2 text-xl font-semibold">
        <Link2 className="size-5 text-emerald-600" aria-hidden /> Shared links
      </h1>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Anyone with one of these links can read that conversation&apos;s whole trace. Revoke a link to cut access.
      </p>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {problem}
        </p>
      )}
      {links.length === 0 ? (
        <p className="mt-8 text-center text-sm text-zinc-500">You have not shared any conversation.</p>
      ) : (
        <ul
          className="mt-6 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          data-testid="shared-links"
        >
          {links.map((link) => {
            const url = shareUrl(typeof window === "undefined" ? "" : window.location.origin, link.token);
            return (
              <li key={link.token} className="flex flex-wrap items-center gap-3 px-4 py-3">
                <div className="min-w-0 flex-1">
                  <Link href={`/c/${link.conversation.id}`} className="block truncate font-medium hover:underline">
                    {link.conversation.title}
                  </Link>
                  <span className="text-xs text-zinc-500">
                    Shared {new Date(link.createdAt).toLocaleDateString()} ·{" "}
                    {link.visibility === "members" ? "members only" : "anyone with the link"}
                  </span>
                </div>
                <CopyButton text={url} label="Copy link" />
                <button
                  type="button"
                  onClick={() => void revoke(link)}
                  className="rounded-md px-2 py-1 text-sm font-medium text-rose-700 hover:bg-rose-50 dark:text-rose-400 dark:hover:bg-rose-950/40"
                >
                  Revoke
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </main>
  );
}
