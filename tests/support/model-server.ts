import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted OpenAI-compatible server: streaming Chat Completions, with tool-call arguments split across chunks,
 * as real servers send them. A scenario is chosen by the last user message of a request, and its reply by the
 * step within the current turn (the number of assistant messages after that user message), so concurrent runs
 * and conversations each follow their own script. When no scenario has the last user message, one that has the
 * first is chosen, its step counted from there: a repair loop that answers each attempt with a user message.
 */
export type Reply =
  | {
      text?: string;
      reasoning?: string;
      toolCalls?: ScriptedCall[];
      chunkSize?: number;
      /** Characters of a call's arguments per chunk (7 by default; Ollama and vLLM send a call whole). */
      argsChunkSize?: number;
      delayMs?: number;
    }
  | { status: number; body?: string }
  | { drop: "after-first-chunk" }
  /** Deltas as fast as the socket takes them, or `delayMs` apart; numbered "i,", or stamped "i@<performance.now()>,". */
  | { deltas: number; numbered?: boolean; stamped?: boolean; delayMs?: number }
  | { stallMs: number }
  /** Exact bytes, as a given server sends them: strings are written as they are, numbers are pauses in ms. */
  | { raw: (string | number)[]; status?: number; contentType?: string };

export interface ScriptedCall {
  name: string;
  /** An object is sent as JSON; a string is sent as is (to send broken JSON). */
  args: Record<string, unknown> | string;
}

type Scenario = Reply[] | ((step: number, body: ChatRequest) => Reply);

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { function: { name: string; arguments: string } }[] }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
}

/** When a chat request's answer was open: from its arrival to its connection's close (NaN while open). */
export interface AnswerSpan {
  user: string;
  openedAt: number;
  closedAt: number;
}

/** The dimensions of the default embeddings: one per hashed word. */
const EMBEDDING_DIMENSIONS = 256;

/**
 * A stand-in for an embedding model, deterministic: each word (lower case, a trailing "s" dropped) adds one to a
 * dimension chosen by its hash, so texts that share words are close, and no other pair is.
 */
export function wordHashEmbedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [word] of text.toLowerCase().matchAll(/[a-z0-9]+/g)) {
    let hash = 0;
    for (const char of word.replace(/s$/, "")) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
    vector[hash % EMBEDDING_DIMENSIONS] += 1;
  }
  return vector;
}

export class ModelServer {
  readonly requests: ChatRequest[] = [];
  /** The texts of every /v1/embeddings request, in order. */
  readonly embeddingRequests: { model: string; input: string[] }[] = [];
  /** How texts are embedded; a test may replace it (with a model of meaning of its own). */
  embed: (text: string) => number[] = wordHashEmbedding;
  private readonly spans: AnswerSpan[] = [];
  private readonly scenarios = new Map<string, Scenario>();
  private server?: http.Server;
  url = "";

  script(userMessage: string, scenario: Scenario): void {
    this.scenarios.set(userMessage, scenario);
  }

  /** Requests whose last user message is `userMessage`. */
  requestsFor(userMessage: string): ChatRequest[] {
    return this.requests.filter((request) => lastUserMessage(request) === userMessage);
  }

  /** The names of the tools the first request for `userMessage` offered, sorted. */
  toolsOffered(userMessage: string): string[] {
    return this.requestsFor(userMessage)[0]
      .tools!.map((tool) => tool.function.name)
      .sort();
  }

  /** When each answer to `userMessage` was being streamed, in the order the requests came. */
  answerSpansFor(userMessage: string): AnswerSpan[] {
    return this.spans.filter((span) => span.user === userMessage);
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    // As hosted APIs do, connections stay open between a run's steps (Node's default of 5 s closes some under load).
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url === "/v1/embeddings") {
      const { model, input } = JSON.parse(Buffer.concat(chunks).toString()) as {
        model: string;
        input: string | string[];
      };
      const texts = Array.isArray(input) ? input : [input];
      this.embeddingRequests.push({ model, input: texts });
      let data;
      try {
        data = texts.map((text, index) => ({ object: "embedding", index, embedding: this.embed(text) }));
      } catch (error) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error) } }));
        return;
      }
      const usage = { prompt_tokens: texts.length, total_tokens: texts.length };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data, model, usage }));
      return;
    }
    if (req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as ChatRequest;
    this.requests.push(body);
    const last = lastUserMessage(body);
    const user = this.scenarios.has(last)
      ? last
      : (userMessages(body).find((text) => this.scenarios.has(text)) ?? last);
    const span = { user, openedAt: performance.now(), closedAt: Number.NaN };
    this.spans.push(span);
    res.once("close", () => (span.closedAt = performance.now()));
    const scenario = this.scenarios.get(user);
    const step = stepsAfter(body, user);
    const reply: Reply | undefined = typeof scenario === "function" ? scenario(step, body) : scenario?.[step];
    await respond(res, reply ?? { text: `No script for step ${step} of "${user}".` }, body.model);
  }
}

const textOf = (message: ChatRequest["messages"][number]) =>
  typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "");

function userMessages(body: ChatRequest): string[] {
  return body.messages.filter((message) => message.role === "user").map(textOf);
}

function lastUserMessage(body: ChatRequest): string {
  return userMessages(body).at(-1) ?? '""';
}

/** The assistant messages after the last user message whose text is `user`. */
function stepsAfter(body: ChatRequest, user: string): number {
  const index = body.messages.findLastIndex((message) => message.role === "user" && textOf(message) === user);
  return body.messages.slice(index + 1).filter((message) => message.role === "assistant").length;
}

/** One Chat Completions stream chunk, as servers write it (for `raw` replies: `streamChunk({ content: "Hi" })`). */
export const streamChunk = (
  delta: object,
  finish: string | null = null,
  extra: object = {},
  id = "chatcmpl-1",
  model = "m",
) =>
  `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
/** The end of a stream, and its start: the role, with no content yet. */
export const STREAM_DONE = "data: [DONE]\n\n";
export const STREAM_ROLE = streamChunk({ role: "assistant", content: "" });

async function respond(res: http.ServerResponse, reply: Reply, model: string): Promise<void> {
  if ("raw" in reply) {
    res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "text/event-stream" });
    for (const piece of reply.raw) {
      if (typeof piece === "number") await new Promise((resolve) => setTimeout(resolve, piece));
      else res.write(piece);
    }
    res.end();
    return;
  }
  if ("status" in reply) {
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(reply.body ?? JSON.stringify({ error: { message: "scripted failure", type: "server_error" } }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(streamChunk(delta, finish, {}, id, model));

  send({ role: "assistant", content: "" });
  if ("drop" in reply) {
    send({ content: "Starting" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    res.socket?.destroy();
    return;
  }
  if ("stallMs" in reply) {
    await new Promise((resolve) => setTimeout(resolve, reply.stallMs));
    send({ content: "late" }, "stop");
    res.end(STREAM_DONE);
    return;
  }
  if ("deltas" in reply) {
    // The stream benchmarks' source: stamped deltas tell a reader how long each took to reach it.
    for (let i = 0; i < reply.deltas; i++) {
      send({ content: reply.stamped ? `${i}@${performance.now().toFixed(3)},` : reply.numbered ? `${i},` : "x" });
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    }
    send({}, "stop");
    res.end(STREAM_DONE);
    return;
  }

  const size = reply.chunkSize ?? 8;
  const pause = () => (reply.delayMs ? new Promise((resolve) => setTimeout(resolve, reply.delayMs)) : undefined);
  for (const piece of split(reply.reasoning ?? "", size)) {
    send({ reasoning_content: piece });
    await pause();
  }
  for (const piece of split(reply.text ?? "", size)) {
    send({ content: piece });
    await pause();
  }
  (reply.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
    const callId = `call_${Math.random().toString(36).slice(2, 10)}`;
    send({ tool_calls: [{ index, id: callId, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of split(args, reply.argsChunkSize ?? 7)) {
      send({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  send({}, reply.toolCalls?.length ? "tool_calls" : "stop");
  res.write(
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`,
  );
  res.end(STREAM_DONE);
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
