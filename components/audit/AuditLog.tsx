"use client";

import { ScrollText } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { api, type AuditEntry } from "@/lib/api/client";
import { useFilteredPages } from "@/components/ui/useFilteredPages";
import { PageTitle } from "@/components/ui/PageTitle";
import { ShowMore } from "@/components/ui/ShowMore";

type Filters = { tool: string; conversation: string; outcome: string; all?: "1" };

const DECISIONS: Record<string, string> = {
  allowed: "allowed",
  refused: "refused",
  rate_limited: "rate-limited",
  approved: "approved",
  denied: "denied",
};

async function fetchEntries(filters: Filters, cursor?: string) {
  const { entries, nextCursor } = await api.audit(filters as Record<string, string>, cursor);
  return { items: entries, nextCursor };
}

/** Every tool call with the profile's decision, filtered by tool, conversation and outcome, and exported. */
export function AuditLog({
  initial,
  all = false,
}: {
  initial: { entries: (AuditEntry & { owner?: string })[]; nextCursor: string | null };
  /** An admin's view of every account's calls (?all=1), each with its owner. */
  all?: boolean;
}) {
  const [filters, setFilters] = useState<Filters>({
    tool: "",
    conversation: "",
    outcome: "",
    ...(all ? { all: "1" as const } : {}),
  });
  const {
    items: entries,
    hasMore,
    problem,
    loadMore,
  } = useFilteredPages({ items: initial.entries, nextCursor: initial.nextCursor }, filters, fetchEntries);

  const field = "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";
  return (
    <section aria-label="Audit log">
      <PageTitle icon={ScrollText} title={all ? "Audit log of all accounts" : "Audit log"}>
        {all
          ? "Every tool call of every account and anonymous visitor"
          : "Every tool call of your conversations and scripts"}
        , with the profile&apos;s decision. Inputs are kept as a hash and a size, never as text.
      </PageTitle>
      <form className="mt-4 flex flex-wrap items-end gap-2" onSubmit={(event) => event.preventDefault()}>
        <label className="text-sm">
          <span className="block font-medium">Tool</span>
          <input
            value={filters.tool}
            onChange={(event) => setFilters({ ...filters, tool: event.target.value.trim() })}
            placeholder="e.g. fetch_url"
            className={field}
          />
        </label>
        <label className="text-sm">
          <span className="block font-medium">Conversation id</span>
          <input
            value={filters.conversation}
            onChange={(event) => setFilters({ ...filters, conversation: event.target.value.trim() })}
            className={field}
          />
        </label>
        <label className="text-sm">
          <span className="block font-medium">Outcome</span>
          <select
            value={filters.outcome}
            onChange={(event) => setFilters({ ...filters, outcome: event.target.value })}
            className={field}
          >
            <option value="">Any</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
            <option value="cancelled">Cancelled</option>
          </select>
        </label>
        <span className="ml-auto flex gap-3 text-sm">
          <a href={api.auditExportUrl(filters, "csv")} download className="text-sky-700 underline dark:text-sky-400">
            Export CSV
          </a>
          <a href={api.auditExportUrl(filters, "jsonl")} download className="text-sky-700 underline dark:text-sky-400">
            Export JSON Lines
          </a>
        </span>
      </form>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      {entries.length === 0 ? (
        <p className="mt-8 text-center text-sm text-zinc-600 dark:text-zinc-400">No tool calls match.</p>
      ) : (
        <div tabIndex={0} role="region" aria-label="Audit entries" className="mt-4 overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="audit-entries">
            <thead className="text-xs text-zinc-600 dark:text-zinc-400">
              <tr>
                {[
                  ...(all ? ["Owner"] : []),
                  ...["When", "Tool", "Profile", "Decision", "Outcome", "Time", "Input", "Conversation"],
                ].map((heading) => (
                  <th key={heading} className="py-1 pr-3 font-medium">
                    {heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {entries.map((entry) => (
                <tr key={entry.id}>
                  {all && <td className="py-1.5 pr-3">{(entry as { owner?: string }).owner}</td>}
                  <td className="whitespace-nowrap py-1.5 pr-3">{new Date(entry.time).toLocaleString()}</td>
                  <td className="py-1.5 pr-3 font-mono text-xs">{entry.tool}</td>
                  <td className="py-1.5 pr-3">{entry.profile ?? "API"}</td>
                  <td className="py-1.5 pr-3" title={entry.reason ?? undefined}>
                    {DECISIONS[entry.decision] ?? entry.decision}
                  </td>
                  <td className="py-1.5 pr-3">{entry.outcome ?? "did not run"}</td>
                  <td className="whitespace-nowrap py-1.5 pr-3">{entry.durationMs} ms</td>
                  <td className="py-1.5 pr-3 font-mono text-xs" title={entry.inputHash}>
                    {entry.inputSize} B · {entry.inputHash.slice(0, 10)}
                  </td>
                  <td className="py-1.5">
                    {entry.conversationId ? (
                      <Link href={`/c/${entry.conversationId}`} className="text-sky-700 underline dark:text-sky-400">
                        open
                      </Link>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hasMore && (
        <ShowMore onShowMore={loadMore} className="mt-3">
          Show older
        </ShowMore>
      )}
    </section>
  );
}
