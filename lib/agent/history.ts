import type { ModelMessage, ToolResultPart } from "ai";
import type { AgentEvent, LoggedEvent, SequencedEvent } from "@/lib/contract/events";

type ToolCallEvent = Extract<AgentEvent, { type: "tool_call" }>;
type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;

/** What the model is told a tool returned: the same capped output the trace shows. */
function toolResultPart(result: ToolResultEvent): ToolResultPart {
  const output: ToolResultPart["output"] = !result.ok
    ? { type: "error-text", value: result.error ?? "failed" }
    : result.truncated || typeof result.output === "string"
      ? { type: "text", value: String(result.output) }
      : { type: "json", value: (result.output ?? null) as never };
  return { type: "tool-result", toolCallId: result.callId, toolName: result.name, output };
}

/** One step as model messages: the assistant's text and calls, then the results of the calls that finished. */
export function stepMessages(text: string, calls: ToolCallEvent[], results: ToolResultEvent[]): ModelMessage[] {
  const answered = calls.filter((call) => results.some((result) => result.callId === call.callId));
  if (!text && answered.length === 0) return [];
  const messages: ModelMessage[] = [
    {
      role: "assistant",
      content: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...answered.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.callId,
          toolName: call.name,
          input: call.input,
        })),
      ],
    },
  ];
  if (answered.length > 0) {
    messages.push({
      role: "tool",
      content: answered.map((call) => toolResultPart(results.find((r) => r.callId === call.callId)!)),
    });
  }
  return messages;
}

/**
 * The conversation so far, as the model should see it, rebuilt from the stored messages and event log: every
 * earlier turn with its tool calls and results, so that the model knows what it built and learned (and, for a run
 * being resumed, its finished steps).
 */
export function conversationHistory(
  messages: { role: string; content: string; runId: string }[],
  events: SequencedEvent[],
  resumingRunId?: string,
): ModelMessage[] {
  const eventsByRun = new Map<string, LoggedEvent[]>();
  // A run taken over goes on after its last finished step: what its dead instance streamed of the next one is dropped.
  const lastFinished =
    resumingRunId === undefined
      ? -1
      : events.findLastIndex(({ event }) => event.runId === resumingRunId && event.type === "step_finished");
  for (const [index, { event }] of events.entries()) {
    if (event.runId === resumingRunId && index > lastFinished) continue;
    if (!eventsByRun.has(event.runId)) eventsByRun.set(event.runId, []);
    eventsByRun.get(event.runId)!.push(event);
  }
  return messages
    .filter((message) => message.role === "user")
    .flatMap((message) => [
      { role: "user" as const, content: message.content },
      ...runMessages(eventsByRun.get(message.runId) ?? []),
    ]);
}

function runMessages(events: LoggedEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let text = "";
  let calls: ToolCallEvent[] = [];
  let results: ToolResultEvent[] = [];
  const closeStep = () => {
    messages.push(...stepMessages(text, calls, results));
    text = "";
    calls = [];
    results = [];
  };
  for (const event of events) {
    if (event.type === "step_started") closeStep();
    else if (event.type === "text_delta") text += event.delta;
    else if (event.type === "tool_call") calls.push(event);
    else if (event.type === "tool_result") results.push(event);
  }
  closeStep();
  return messages;
}
