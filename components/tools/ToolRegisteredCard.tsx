import { Wrench } from "lucide-react";
import type { RegisteredToolView } from "@/lib/contract/events";
import { CodeBlock } from "@/components/ui/CodeBlock";
import { DependentChecks, ToolNames } from "./DependentChecks";
import { ExampleList, UntestedBadge } from "./Examples";
import { HighlightCard } from "./HighlightCard";
import { LanguageBadge } from "./LanguageBadge";
import { LibraryActions } from "./LibraryActions";
import { Signature } from "./Signature";
import { toolLanguage } from "./tool-language";

/** The highlight of a trace: the agent made itself a tool, with the examples it passed (none: untested). */
export function ToolRegisteredCard({ tool, codeOpen = false }: { tool: RegisteredToolView; codeOpen?: boolean }) {
  // Logs written before tools had examples have none to show: those tools are untested too.
  const examples = tool.examples ?? [];
  const language = toolLanguage(tool);
  return (
    <HighlightCard
      tone="emerald"
      icon={Wrench}
      label="Tool registered"
      ariaLabel={`Tool registered: ${tool.name}`}
      testId="tool-registered"
      badge={
        <>
          <span className="rounded-full bg-emerald-200/80 px-2 py-0.5 text-[11px] font-medium text-emerald-900 dark:bg-emerald-800/70 dark:text-emerald-100">
            v{tool.version}
          </span>
          <LanguageBadge language={language} />
          {examples.length === 0 && <UntestedBadge />}
        </>
      }
    >
      <div className="mt-2 text-emerald-950 dark:text-emerald-50">
        <Signature name={tool.name} schema={tool.parametersSchema} />
      </div>
      <p className="mt-1 text-sm text-emerald-900/90 dark:text-emerald-100/80">{tool.description}</p>
      {/* Logs written before tools could call tools have no uses: nothing to say. */}
      {tool.uses && tool.uses.length > 0 && (
        <p className="mt-1 text-sm text-emerald-950 dark:text-emerald-50" data-testid="tool-uses">
          Uses <ToolNames names={tool.uses} />
        </p>
      )}
      {tool.secrets && tool.secrets.length > 0 && (
        <p className="mt-1 text-sm text-emerald-950 dark:text-emerald-50" data-testid="tool-secrets">
          Uses the secrets{" "}
          {tool.secrets.map((name, index) => (
            <span key={name}>
              {index > 0 && ", "}
              <a href="/settings#secrets" className="font-mono underline">
                {name}
              </a>
            </span>
          ))}{" "}
          (their values never reach the code)
        </p>
      )}
      {examples.length > 0 && (
        <div className="mt-2 text-emerald-950 dark:text-emerald-50">
          <ExampleList examples={examples} />
        </div>
      )}
      {tool.dependents && tool.dependents.length > 0 && (
        <div className="mt-2 text-emerald-950 dark:text-emerald-50">
          <DependentChecks dependents={tool.dependents} />
        </div>
      )}
      <details className="group mt-2" open={codeOpen}>
        <summary className="cursor-pointer select-none text-xs font-medium text-emerald-800 hover:underline dark:text-emerald-300">
          <span className="group-open:hidden">Show code</span>
          <span className="hidden group-open:inline">Hide code</span>
        </summary>
        <CodeBlock code={tool.code} language={language} showLineNumbers className="mt-2" />
      </details>
      {/* Logs written before events carried the tool's id have no page to link to. */}
      <LibraryActions toolId={tool.id} name={tool.name} />
    </HighlightCard>
  );
}
