"use client";

import { Archive, ArchiveRestore, Library, MessageSquare, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { api, problemText, type Execution, type Tool, type ToolRun } from "@/lib/api/client";
import { Button } from "@/components/ui/Button";
import { CodeBlock } from "@/components/ui/CodeBlock";
import { JsonView } from "@/components/ui/JsonView";
import { DurationChart } from "./DurationChart";
import { UntestedBadge } from "./Examples";
import { ExecutionsTable } from "./ExecutionsTable";
import { LanguageBadge } from "./LanguageBadge";
import { RunForm } from "./RunForm";
import { Signature } from "./Signature";
import { ToolExamples } from "./ToolExamples";
import { ToolRelations, type ToolLink } from "./ToolRelations";
import { toolLanguage } from "./tool-language";
import { VersionDiff } from "./VersionDiff";

interface ToolDetailProps {
  initial: Tool;
  versions: Tool[];
  executions: Execution[];
  /** The tools this version calls and those that call it, resolved to pages on the server. */
  relations: { uses: ToolLink[]; usedBy: ToolLink[] };
}

/** One tool: what it is, how it has done, its examples, its versions, and a form to run it. */
export function ToolDetail({ initial, versions, executions: initialExecutions, relations }: ToolDetailProps) {
  const router = useRouter();
  const [tool, setTool] = useState(initial);
  const [executions, setExecutions] = useState(initialExecutions);
  const [result, setResult] = useState<ToolRun | null>(null);
  const [running, setRunning] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const stats = tool.stats;
  const language = toolLanguage(tool);

  const attempt = async (work: () => Promise<void>) => {
    setProblem(null);
    try {
      await work();
    } catch (error) {
      setProblem(problemText(error));
    }
  };
  const change = (patch: Parameters<typeof api.changeTool>[1]) =>
    attempt(async () => setTool(await api.changeTool(tool.id, patch)));
  const run = (input: Record<string, unknown>) =>
    attempt(async () => {
      setRunning(true);
      try {
        setResult(await api.runTool(tool.id, input));
        const [fresh, recent] = await Promise.all([api.tool(tool.id), api.toolExecutions(tool.id)]);
        setTool(fresh);
        setExecutions(recent.executions);
      } finally {
        setRunning(false);
      }
    });
  const remove = () =>
    attempt(async () => {
      await api.deleteTool(tool.id);
      router.push("/tools");
    });

  return (
    <article aria-labelledby="tool-title">
      <Link href="/tools" className="text-sm text-zinc-600 hover:underline dark:text-zinc-400">
        ← Tool library
      </Link>
      <header className="mt-2 flex flex-wrap items-center gap-2">
        <h1 id="tool-title" className="font-mono text-xl font-semibold">
          {tool.name}
        </h1>
        <span className="rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-900 dark:bg-emerald-900/60 dark:text-emerald-100">
          v{tool.version}
        </span>
        <LanguageBadge language={language} />
        <span
          className="rounded-full bg-zinc-200 px-2 py-0.5 text-xs font-medium text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200"
          data-testid="tool-scope"
        >
          {tool.scope === "library" ? "In the library" : "One conversation"}
        </span>
        {tool.status === "deprecated" && (
          <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-950 dark:bg-amber-900/60 dark:text-amber-100">
            Deprecated
          </span>
        )}
        {!tool.tested && <UntestedBadge />}
      </header>
      <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">{tool.description}</p>
      <div className="mt-2">
        <Signature name={tool.name} schema={tool.parameters_schema} />
      </div>
      <ToolRelations {...relations} />
      {tool.conversationId && (
        <Link
          href={`/c/${tool.conversationId}`}
          className="mt-2 inline-flex items-center gap-1 text-sm text-sky-700 hover:underline dark:text-sky-400"
        >
          <MessageSquare className="size-4" aria-hidden /> The conversation that made it
        </Link>
      )}

      <div className="mt-4 flex flex-wrap gap-2">
        <Button onClick={() => void change({ scope: tool.scope === "library" ? "conversation" : "library" })}>
          <Library className="size-4" aria-hidden />{" "}
          {tool.scope === "library" ? "Keep in its conversation only" : "Add to library"}
        </Button>
        <Button onClick={() => void change({ status: tool.status === "deprecated" ? "active" : "deprecated" })}>
          {tool.status === "deprecated" ? (
            <ArchiveRestore className="size-4" aria-hidden />
          ) : (
            <Archive className="size-4" aria-hidden />
          )}
          {tool.status === "deprecated" ? "Reactivate" : "Deprecate"}
        </Button>
        {confirmDelete ? (
          <span className="flex items-center gap-2 text-sm">
            Delete every version?
            <Button variant="danger" onClick={() => void remove()}>
              Delete
            </Button>
            <Button onClick={() => setConfirmDelete(false)}>Cancel</Button>
          </span>
        ) : (
          <Button onClick={() => setConfirmDelete(true)} className="text-rose-800 dark:text-rose-300">
            <Trash2 className="size-4" aria-hidden /> Delete
          </Button>
        )}
      </div>
      {problem && (
        <p role="alert" className="mt-3 text-sm text-rose-700 dark:text-rose-300">
          {problem}
        </p>
      )}

      <Section title="Statistics">
        <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-5" data-testid="tool-stats">
          {[
            ["Calls", String(stats?.executions ?? 0)],
            [
              "Succeeded",
              stats && stats.executions > 0 ? `${Math.round((stats.successes / stats.executions) * 100)} %` : "—",
            ],
            ["Mean time", stats?.meanDurationMs == null ? "—" : `${stats.meanDurationMs} ms`],
            ["Last time", stats?.lastDurationMs == null ? "—" : `${stats.lastDurationMs} ms`],
            ["Last used", stats?.lastUsedAt ? new Date(stats.lastUsedAt).toLocaleString() : "never"],
          ].map(([label, value]) => (
            <div key={label} className="rounded-lg border border-zinc-200 px-3 py-2 dark:border-zinc-800">
              <dt className="text-xs text-zinc-600 dark:text-zinc-400">{label}</dt>
              <dd className="font-medium" data-testid={`stat-${label.toLowerCase().replace(" ", "-")}`}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
        <DurationChart executions={executions} />
      </Section>

      <Section title="Run it">
        <RunForm schema={tool.parameters_schema} running={running} onRun={(input) => void run(input)} />
        {result && (
          <div className="mt-3" data-testid="run-result">
            <p
              className={`text-sm font-medium ${result.ok ? "text-emerald-800 dark:text-emerald-300" : "text-rose-800 dark:text-rose-300"}`}
            >
              {result.ok ? "Succeeded" : "Failed"} in {result.durationMs} ms
            </p>
            <JsonView value={result.ok ? result.output : result.error} label={result.ok ? "Output" : "Error"} />
          </div>
        )}
      </Section>

      <Section title="Examples">
        {/* A kept example makes the last run's outcomes stale: they start afresh. */}
        <ToolExamples key={tool.examples.length} tool={tool} />
      </Section>

      <Section title="Code">
        <CodeBlock code={tool.code} language={language} showLineNumbers />
        <div className="mt-3">
          <JsonView value={tool.parameters_schema} label="Parameters schema" />
        </div>
      </Section>

      <Section title="Versions">
        <VersionDiff versions={versions} />
      </Section>

      <Section title="Recent calls">
        <ExecutionsTable toolId={tool.id} executions={executions} onKept={setTool} />
      </Section>
    </article>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  const id = useId();
  return (
    <section className="mt-8" aria-labelledby={id}>
      <h2 id={id} className="mb-2 text-base font-semibold">
        {title}
      </h2>
      {children}
    </section>
  );
}
