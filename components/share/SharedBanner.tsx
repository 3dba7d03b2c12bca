"use client";

import { Eye, GitFork } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api, problemText } from "@/lib/api/client";

/** On a shared page: what this is, and a way to continue in one's own chats. */
export function SharedBanner({ token }: { token: string }) {
  const router = useRouter();
  const [problem, setProblem] = useState<string | null>(null);
  const [forking, setForking] = useState(false);
  const fork = async () => {
    setForking(true);
    setProblem(null);
    try {
      router.push((await api.forkShared(token)).url);
    } catch (error) {
      setProblem(problemText(error));
      setForking(false);
    }
  };
  return (
    <div
      role="status"
      data-testid="shared-banner"
      className="flex flex-wrap items-center gap-3 border-b border-sky-200 bg-sky-50 px-4 py-2.5 text-sm text-sky-950 dark:border-sky-900/60 dark:bg-sky-950/40 dark:text-sky-100"
    >
      <Eye className="size-4 shrink-0" aria-hidden />
      <p className="min-w-0 flex-1">
        <strong className="font-semibold">Shared conversation, read-only.</strong> You see the whole trace as its owner
        does; it follows live while the agent works.
      </p>
      <button
        type="button"
        onClick={() => void fork()}
        disabled={forking}
        className="inline-flex items-center gap-1.5 rounded-lg bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-60"
      >
        <GitFork className="size-4" aria-hidden /> Continue in my chats
      </button>
      {problem && (
        <p role="alert" className="w-full text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
    </div>
  );
}
