"use client";

import { Activity, Wrench, X } from "lucide-react";
import { useMemo, useState, type ReactNode } from "react";
import type { RegisteredToolView } from "@/lib/contract/events";
import type { RunView, TraceState } from "@/lib/trace/state";
import { Button } from "@/components/ui/Button";
import { HydrationBoundary } from "@/components/ui/HydrationBoundary";
import { JumpToLatest } from "@/components/ui/JumpToLatest";
import { ScrollRootContext } from "@/components/ui/LazyMount";
import { useStickToBottom } from "@/components/ui/useStickToBottom";
import { ToolsList } from "@/components/tools/ToolsList";
import { FindStoreContext } from "./findStore";
import { RunTimeline } from "./RunTimeline";
import { TraceToolbar } from "./TraceToolbar";
import type { FindTarget } from "./usePermalink";
import { useTraceFind } from "./useTraceFind";

interface TracePanelProps {
  trace: TraceState;
  tools: RegisteredToolView[];
  runStarts: Record<string, string>;
  onClose?: () => void;
}

/** The reasoning panel: every run as a timeline of steps and tool calls, and the tools the conversation made. */
export function TracePanel({ trace, tools, runStarts, onClose }: TracePanelProps) {
  const [tab, setTab] = useState<"trace" | "tools">("trace");
  const { ref, onScroll, showJump, jumpToLatest } = useStickToBottom<HTMLDivElement>(trace.lastEventId);
  const { searchBox, ...find } = useTraceFind(trace, {
    showTrace: () => setTab("trace"),
    land: (card: HTMLElement, target: FindTarget) => {
      // A card taller than the panel is shown from its top; the panel stops following the end of a live run.
      card.scrollIntoView({ block: card.offsetHeight > (ref.current?.clientHeight ?? 0) ? "start" : "center" });
      onScroll();
      if (target.focus) card.focus({ preventScroll: true });
    },
  });
  const timelines = useMemo(() => ({ runs: trace.runs, runStarts }), [trace.runs, runStarts]);

  return (
    <aside
      aria-label="Reasoning panel"
      className="flex h-full min-h-0 flex-col bg-zinc-50/60 dark:bg-zinc-950"
      onKeyDown={find.onPanelKeyDown}
    >
      <div className="flex items-center gap-1 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <div role="tablist" aria-label="Panel view" className="flex items-center gap-1">
          <PanelTab selected={tab === "trace"} onSelect={() => setTab("trace")}>
            <Activity className="size-4" aria-hidden /> Trace
          </PanelTab>
          <PanelTab selected={tab === "tools"} onSelect={() => setTab("tools")}>
            <Wrench className="size-4" aria-hidden /> Tools
            <span className="rounded-full bg-zinc-200 px-1.5 text-[11px] dark:bg-zinc-700">{tools.length}</span>
          </PanelTab>
        </div>
        {onClose && (
          <Button
            variant="quiet"
            size="icon"
            onClick={onClose}
            aria-label="Close the reasoning panel"
            className="ml-auto"
          >
            <X className="size-4" aria-hidden />
          </Button>
        )}
      </div>
      {tab === "trace" && trace.runs.length > 0 && <TraceToolbar find={find} searchBox={searchBox} />}
      <div className="relative min-h-0 flex-1">
        <div ref={ref} onScroll={onScroll} className="h-full overflow-y-auto" data-testid="trace-scroll">
          {tab === "tools" ? (
            <ToolsList tools={tools} />
          ) : trace.runs.length === 0 ? (
            <p className="px-6 py-12 text-center text-sm text-zinc-500 dark:text-zinc-400">
              Each step of the agent — its reasoning, tool calls, and the tools it builds — appears here as it happens.
            </p>
          ) : (
            <ScrollRootContext.Provider value={ref}>
              <FindStoreContext.Provider value={find.store}>
                {/* The panel's controls respond before a long trace has hydrated. */}
                <HydrationBoundary content={RunTimelines} props={timelines} />
              </FindStoreContext.Provider>
            </ScrollRootContext.Provider>
          )}
        </div>
        {showJump && tab === "trace" && <JumpToLatest onClick={jumpToLatest} />}
      </div>
    </aside>
  );
}

/** Every run's timeline, the latest last. */
function RunTimelines({ runs, runStarts }: { runs: RunView[]; runStarts: Record<string, string> }) {
  return runs.map((run, index) => (
    <RunTimeline
      key={run.runId}
      run={run}
      index={index}
      startedAt={runStarts[run.runId]}
      latest={index === runs.length - 1}
    />
  ));
}

function PanelTab({ selected, onSelect, children }: { selected: boolean; onSelect: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      role="tab"
      aria-selected={selected}
      onClick={onSelect}
      className={`inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium ${
        selected
          ? "bg-zinc-200/80 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50"
          : "text-zinc-600 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-100"
      }`}
    >
      {children}
    </button>
  );
}
