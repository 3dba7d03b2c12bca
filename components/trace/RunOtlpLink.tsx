"use client";

import { Download } from "lucide-react";
import { api } from "@/lib/api/client";
import { useTraceViewer } from "./TraceContext";

/** The run as OpenTelemetry JSON, for Langfuse, Phoenix or a collector; the owner's only. */
export function RunOtlpLink({ runId, index }: { runId: string; index: number }) {
  const viewer = useTraceViewer();
  if (!viewer?.owner || !("conversationId" in viewer.source)) return null;
  const label = `Download run ${index + 1} as OpenTelemetry JSON`;
  // Named by its content, the visible "OTLP" within it: "Download run N as OpenTelemetry JSON, OTLP".
  return (
    <a
      href={api.runOtlpUrl(viewer.source.conversationId, runId)}
      download
      title={label}
      className="inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-[11px] font-medium text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-600 dark:text-zinc-300 dark:hover:bg-zinc-800"
    >
      <Download className="size-3.5" aria-hidden />
      <span className="sr-only">{label}, </span>OTLP
    </a>
  );
}
