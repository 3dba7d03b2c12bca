import type { ModelMessage, ToolResultPart } from "ai";
import type { AgentEvent, LoggedEvent, SequencedEvent } from "@/lib/contract/events";
import type { MessageAttachments } from "@/lib/files/for-model";

type ToolCallEvent = Extract<AgentEvent, { type: "tool_call" }>;
type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;
type AssistantContent = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>;

/**
 * A reasoning block the model server signed (Claude's thinking, with its signature) or sent encrypted (redacted
 * thinking): Anthropic requires it back, unchanged, ahead of its step's tool calls. Unsigned reasoning (OpenAI's,
 * `<think>`) stays in the trace only.
 */
export type SignedReasoning = { text: string; signature: string } | { redacted: string };

/**
 * A step's signed reasoning, read from its events in order: the same reading for a step just streamed (model-step.ts)
 * and for one rebuilt from the stored log (a later turn, a run taken over), so both send the model the same blocks.
 */
export class ReasoningBlocks {
  readonly blocks: SignedReasoning[] = [];
  private text = "";

  observe(event: AgentEvent): void {
    if (event.type !== "reasoning_delta") {
      // A block's deltas are consecutive; reasoning that no signature closed is not the next block's.
      this.text = "";
      return;
    }
    if (event.redacted !== undefined) {
      this.blocks.push({ redacted: event.redacted });
      this.text = "";
      return;
    }
    this.text += event.delta;
    if (event.signature !== undefined) {
      this.blocks.push({ text: this.text, signature: event.signature });
      this.text = "";
    }
  }
}

/** The blocks as the SDK's assistant content, which the Anthropic client turns back into thinking blocks. */
function reasoningParts(blocks: SignedReasoning[]): AssistantContent {
  return blocks.map((block) =>
    "redacted" in block
      ? { type: "reasoning" as const, text: "", providerOptions: { anthropic: { redactedData: block.redacted } } }
      : {
          type: "reasoning" as const,
          text: block.text,
          providerOptions: { anthropic: { signature: block.signature } },
        },
  );
}

/** What the model is told a tool returned: the same capped output the trace shows, with the notes below. */
function toolResultPart(result: ToolResultEvent): ToolResultPart {
  return { type: "tool-result", toolCallId: result.callId, toolName: result.name, output: modelOutput(result) };
}

function modelOutput(result: ToolResultEvent): ToolResultPart["output"] {
  if (!result.ok) return { type: "error-text", value: result.error ?? "failed" };
  const plain = typeof result.output === "string" || result.truncated;
  const notes = resultNotes(result);
  if (notes.length === 0)
    return plain
      ? { type: "text", value: String(result.output) }
      : { type: "json", value: (result.output ?? null) as never };
  const value = plain ? String(result.output) : JSON.stringify(result.output ?? null);
  return { type: "text", value: [value, ...notes].join("\n\n") };
}

/**
 * What the code printed, a line for the charts it drew (an MCP tool's text already says what its images are), and
 * one for each file it wrote, deleted or could not keep.
 */
function resultNotes(result: ToolResultEvent): string[] {
  const notes = result.logs?.length ? [`Printed:\n${result.logs.join("\n")}`] : [];
  const charts = result.server ? 0 : (result.images?.length ?? 0);
  if (charts === 1) notes.push("[A chart the code drew was shown to the person as an image.]");
  if (charts > 1) notes.push(`[${charts} charts the code drew were shown to the person as images.]`);
  for (const file of result.files ?? [])
    notes.push(`[Wrote ${file.path} (${file.mimeType}, ${file.size} bytes): the person sees it with a download link.]`);
  if (result.deletedFiles?.length) notes.push(`[Deleted ${result.deletedFiles.join(", ")} from the workspace.]`);
  for (const refusal of result.refusedFiles ?? []) notes.push(`[Not kept: ${refusal}]`);
  return notes;
}

/**
 * One step as model messages: the assistant's signed reasoning (first, as Anthropic requires), its text and calls,
 * then the results of the calls that finished.
 */
export function stepMessages(
  text: string,
  calls: ToolCallEvent[],
  results: ToolResultEvent[],
  reasoning: SignedReasoning[] = [],
): ModelMessage[] {
  const answered = calls.filter((call) => results.some((result) => result.callId === call.callId));
  if (!text && answered.length === 0) return [];
  const messages: ModelMessage[] = [
    {
      role: "assistant",
      content: [
        ...reasoningParts(reasoning),
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
  messages: { id: string; role: string; content: string; runId: string }[],
  events: SequencedEvent[],
  resumingRunId?: string,
  attachments: ReadonlyMap<string, MessageAttachments> = new Map(),
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
      userMessage(message.content, attachments.get(message.id)),
      ...runMessages(eventsByRun.get(message.runId) ?? []),
    ]);
}

/** A person's message, with what it attached: a paragraph on its files, and its images as image parts. */
function userMessage(content: string, attached: MessageAttachments | undefined): ModelMessage {
  if (!attached) return { role: "user", content };
  return {
    role: "user",
    content: [
      { type: "text", text: content },
      { type: "text", text: attached.text },
      ...attached.images.map(({ data, mediaType }) => ({ type: "image" as const, image: data, mediaType })),
    ],
  };
}

function runMessages(events: LoggedEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let text = "";
  let calls: ToolCallEvent[] = [];
  let results: ToolResultEvent[] = [];
  let reasoning = new ReasoningBlocks();
  const closeStep = () => {
    messages.push(...stepMessages(text, calls, results, reasoning.blocks));
    text = "";
    calls = [];
    results = [];
    reasoning = new ReasoningBlocks();
  };
  for (const event of events) {
    reasoning.observe(event);
    if (event.type === "step_started") closeStep();
    else if (event.type === "text_delta") text += event.delta;
    else if (event.type === "tool_call") calls.push(event);
    else if (event.type === "tool_result") results.push(event);
  }
  closeStep();
  return messages;
}
