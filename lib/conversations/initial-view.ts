import { config, modelConfig } from "@/lib/settings/config";
import type { Trace } from "./trace";
import { applyEvents, emptyTrace } from "@/lib/trace/state";
import type { ModelPrices } from "@/lib/trace/timing";

/**
 * What a page sends the browser: the event log folded into runs and steps on the server, which is far smaller
 * to send and to hydrate than the events themselves.
 */
export function initialView({ events, ...trace }: Trace) {
  const folded = applyEvents(emptyTrace, events);
  return {
    id: trace.id,
    title: trace.title,
    profile: trace.profile,
    activeRunId: trace.activeRunId,
    runs: trace.runs.map((run) => ({ id: run.id, createdAt: run.createdAt })),
    // Each person's message with the files it attached.
    messages: trace.messages.map((message) => ({
      ...message,
      role: message.role as "user" | "assistant",
      files: trace.files.filter((file) => file.messageId === message.id),
    })),
    trace: folded,
    /** The prices of the models its runs used, and of the next run's: the cost of each run. */
    prices: pricesOf(new Set([...folded.runs.map((run) => run.model), modelConfig()?.model])),
  };
}

const pricesOf = (models: Set<string | undefined>): ModelPrices =>
  Object.fromEntries(Object.entries(config.modelPrices).filter(([model]) => models.has(model)));

export type InitialView = ReturnType<typeof initialView>;
