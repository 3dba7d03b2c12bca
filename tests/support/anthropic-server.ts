import type http from "node:http";
import { ScriptedServer, split, type ScriptedCall, type Turn } from "./model-server";

/**
 * A scripted server of Anthropic's Messages API (POST /v1/messages, streamed), on the same script machinery as the
 * OpenAI one (model-server.ts): it writes Anthropic's own SSE events, byte for byte as api.anthropic.com does
 * (`event: <type>` then `data: <json>`), thinking with its signature, redacted thinking, tool_use with its input
 * streamed as `input_json_delta`, pings, an `overloaded_error` mid-stream, and a 529 before any stream.
 */
export type ClaudeReply =
  | {
      thinking?: string;
      /** The thinking block's signature: by default one made from its text, so a test can tell blocks apart. */
      signature?: string;
      /** A redacted_thinking block's encrypted data, before any thinking. */
      redacted?: string;
      text?: string;
      toolCalls?: ScriptedCall[];
      chunkSize?: number;
      delayMs?: number;
    }
  /** An HTTP error before any stream, Anthropic's error body by default (529: overloaded). */
  | { status: number; body?: string }
  /** A stream that begins, sends `text`, then `event: error` with overloaded_error, as Anthropic does under load. */
  | { overloadedAfter: string }
  /** Text deltas as fast as the socket takes them: the stream benchmark's source. */
  | { deltas: number };

export interface ClaudeBlock {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

export interface ClaudeRequest {
  model: string;
  max_tokens: number;
  system?: string | { type: string; text: string }[];
  messages: { role: "user" | "assistant"; content: string | ClaudeBlock[] }[];
  tools?: { name: string; description?: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: string; name?: string };
  thinking?: { type: string; budget_tokens?: number };
  stream?: boolean;
}

/** Anthropic's error body, as its API sends it with a 4xx or 5xx, and inside an `event: error`. */
export const claudeError = (type: string, message: string) => ({ type: "error", error: { type, message } });

export const defaultSignature = (thinking: string) => `sig-${Buffer.from(thinking).toString("base64")}`;

export class AnthropicServer extends ScriptedServer<ClaudeRequest, ClaudeReply> {
  protected readonly endpoint = "/messages";

  protected turns(body: ClaudeRequest): Turn[] {
    return body.messages.map(({ role, content }) => {
      const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
      const texts = blocks.filter((block) => block.type === "text").map((block) => block.text ?? "");
      // Tool results come back in a user message: for the script, not the person's.
      if (role === "user" && texts.length === 0) return { role: "other", text: "" };
      // A person's message with attachments: the message is its first text, the files' paragraph the next.
      return { role, text: role === "user" ? texts[0] : texts.join("") };
    });
  }

  protected toolNames(body: ClaudeRequest): string[] {
    return (body.tools ?? []).map((tool) => tool.name);
  }

  protected async respond(
    res: http.ServerResponse,
    reply: ClaudeReply | undefined,
    step: number,
    user: string,
    body: ClaudeRequest,
  ): Promise<void> {
    await respond(res, reply ?? { text: `No script for step ${step} of "${user}".` }, body.model);
  }
}

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const randomId = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 12)}`;

async function respond(res: http.ServerResponse, reply: ClaudeReply, model: string): Promise<void> {
  if ("status" in reply) {
    const body = reply.body ?? JSON.stringify(claudeError("overloaded_error", "Overloaded"));
    res.writeHead(reply.status, { "content-type": "application/json", "x-should-retry": "true" }).end(body);
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const message = { id: randomId("msg"), type: "message", role: "assistant", model, content: [] };
  res.write(
    event("message_start", {
      message: { ...message, stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, output_tokens: 1 } },
    }),
  );
  let index = 0;
  const block = (start: object, deltas: object[]) => {
    res.write(event("content_block_start", { index, content_block: start }));
    for (const delta of deltas) res.write(event("content_block_delta", { index, delta }));
    res.write(event("content_block_stop", { index }));
    index++;
  };
  if ("overloadedAfter" in reply) {
    block({ type: "text", text: "" }, [{ type: "text_delta", text: reply.overloadedAfter }]);
    res.end(event("error", claudeError("overloaded_error", "Overloaded")));
    return;
  }
  if ("deltas" in reply) {
    res.write(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (let i = 0; i < reply.deltas; i++) {
      res.write(event("content_block_delta", { index, delta: { type: "text_delta", text: "x" } }));
    }
    res.write(event("content_block_stop", { index }));
    res.write(
      event("message_delta", {
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: reply.deltas },
      }),
    );
    res.end(event("message_stop", {}));
    return;
  }

  const size = reply.chunkSize ?? 8;
  const pause = () => (reply.delayMs ? new Promise((resolve) => setTimeout(resolve, reply.delayMs)) : undefined);
  if (reply.redacted !== undefined) block({ type: "redacted_thinking", data: reply.redacted }, []);
  if (reply.thinking !== undefined) {
    res.write(
      event("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }),
    );
    // Anthropic pings while the model thinks.
    res.write(event("ping", {}));
    for (const piece of split(reply.thinking, size)) {
      res.write(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      await pause();
    }
    const signature = reply.signature ?? defaultSignature(reply.thinking);
    res.write(event("content_block_delta", { index, delta: { type: "signature_delta", signature } }));
    res.write(event("content_block_stop", { index }));
    index++;
  }
  if (reply.text) {
    block(
      { type: "text", text: "" },
      split(reply.text, size).map((text) => ({ type: "text_delta", text })),
    );
  }
  for (const call of reply.toolCalls ?? []) {
    const input = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
    block({ type: "tool_use", id: randomId("toolu"), name: call.name, input: {} }, [
      { type: "input_json_delta", partial_json: "" },
      ...split(input, 7).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    ]);
  }
  const stopReason = reply.toolCalls?.length ? "tool_use" : "end_turn";
  res.write(
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 15 } }),
  );
  res.end(event("message_stop", {}));
}
