"use client";

import { Library as LibraryIcon, Search, WandSparkles } from "lucide-react";
import Link from "next/link";
import { useId, useRef, useState } from "react";
import { api, type Tool } from "@/lib/api/client";
import { useFilteredPages } from "@/components/ui/useFilteredPages";
import { PageTitle } from "@/components/ui/PageTitle";
import { Button } from "@/components/ui/Button";
import { ShowMore } from "@/components/ui/ShowMore";
import { UntestedBadge } from "./Examples";
import { GenerateToolForm } from "./GenerateToolForm";
import { Signature } from "./Signature";
import { LANGUAGE_NAMES, toolLanguage } from "./tool-language";

type Filters = { q: string; status: string; scope: string };

const SEARCH_DELAY_MS = 200;

async function fetchTools({ q, status, scope }: Filters, cursor?: string) {
  const { tools, nextCursor } = await api.listTools({ q: q.trim(), status, scope, cursor });
  return { items: tools, nextCursor };
}

/** Every tool a person has: searchable by name and description, filtered by status and scope. */
export function Library({ initial }: { initial: { tools: Tool[]; nextCursor: string | null } }) {
  const [filters, setFilters] = useState<Filters>({ q: "", status: "", scope: "" });
  const [creating, setCreating] = useState(false);
  const formId = useId();
  const createButton = useRef<HTMLButtonElement>(null);
  const {
    items: tools,
    hasMore,
    problem,
    loadMore,
  } = useFilteredPages({ items: initial.tools, nextCursor: initial.nextCursor }, filters, fetchTools, SEARCH_DELAY_MS);

  const select = "rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900";
  return (
    <section aria-label="Tool library">
      <PageTitle icon={LibraryIcon} title="Tool library">
        The tools the agent made for you, and the ones you added through the API. Tools in the library are offered in
        every conversation.
      </PageTitle>
      <Button
        ref={createButton}
        aria-expanded={creating}
        aria-controls={creating ? formId : undefined}
        onClick={() => setCreating(!creating)}
        className="mt-4"
      >
        <WandSparkles className="size-4" aria-hidden /> Create from description
      </Button>
      {creating && (
        <GenerateToolForm
          id={formId}
          onClose={() => {
            setCreating(false);
            createButton.current?.focus();
          }}
        />
      )}
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <label className="flex min-w-60 flex-1 items-center gap-2 rounded-md border border-zinc-300 px-2 dark:border-zinc-700">
          <Search className="size-4 text-zinc-600 dark:text-zinc-400" aria-hidden />
          <span className="sr-only">Search tools</span>
          <input
            type="search"
            value={filters.q}
            onChange={(event) => setFilters({ ...filters, q: event.target.value })}
            placeholder="Search by name or description"
            className="min-w-0 flex-1 bg-transparent py-1.5 text-sm outline-none"
          />
        </label>
        <label className="text-sm">
          <span className="sr-only">Status</span>
          <select
            value={filters.status}
            onChange={(event) => setFilters({ ...filters, status: event.target.value })}
            className={select}
          >
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="deprecated">Deprecated</option>
          </select>
        </label>
        <label className="text-sm">
          <span className="sr-only">Scope</span>
          <select
            value={filters.scope}
            onChange={(event) => setFilters({ ...filters, scope: event.target.value })}
            className={select}
          >
            <option value="">Library and conversations</option>
            <option value="library">Library</option>
            <option value="conversation">One conversation</option>
          </select>
        </label>
      </div>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}
      {tools.length === 0 ? (
        <p className="mt-10 text-center text-sm text-zinc-600 dark:text-zinc-400">
          No tools match. Ask the agent for something no tool does yet, and it will make one.
        </p>
      ) : (
        <ul
          className="mt-4 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          data-testid="library-tools"
        >
          {tools.map((tool) => (
            <li key={tool.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3">
              <div className="min-w-0 flex-1">
                <Link href={`/tools/${tool.id}`} className="hover:underline">
                  <Signature name={tool.name} schema={tool.parameters_schema} />
                </Link>
                <p className="truncate text-sm text-zinc-600 dark:text-zinc-400">{tool.description}</p>
              </div>
              {!tool.tested && <UntestedBadge />}
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                v{tool.version} · {LANGUAGE_NAMES[toolLanguage(tool)]} ·{" "}
                {tool.scope === "library" ? "library" : "one conversation"}
                {tool.status === "deprecated" && " · deprecated"} · {tool.stats?.executions ?? 0} calls
                {tool.usedBy && tool.usedBy.length > 0 && ` · used by ${tool.usedBy.length}`}
              </span>
            </li>
          ))}
        </ul>
      )}
      {hasMore && <ShowMore onShowMore={loadMore} className="mt-3" />}
    </section>
  );
}
