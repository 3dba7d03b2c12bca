import http from "node:http";
import type { AddressInfo } from "node:net";
import { keepIdleConnections } from "@/server-runtime.mjs";

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

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { function: { name: string; arguments: string } }[] }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
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

/** A request's turns as every dialect's script reads them: the person's texts, the model's answers, and the rest. */
export interface Turn {
  role: "user" | "assistant" | "other";
  text: string;
}

/**
 * What the scripted servers of every dialect share: scenarios chosen by the last user message, the step counted by
 * the model's answers after it, the requests and when each answer was open. A dialect says where it listens, how its
 * requests read as turns, and how it writes a reply.
 */
export abstract class ScriptedServer<Request, R> {
  readonly requests: Request[] = [];
  private readonly spans: AnswerSpan[] = [];
  private readonly scenarios = new Map<string, Scenario<Request, R>>();
  private server?: http.Server;
  url = "";

  /** The path of the dialect's streaming endpoint, under /v1. */
  protected abstract readonly endpoint: string;
  protected abstract turns(body: Request): Turn[];
  protected abstract toolNames(body: Request): string[];
  protected abstract respond(
    res: http.ServerResponse,
    reply: R | undefined,
    step: number,
    user: string,
    body: Request,
  ): Promise<void>;
  /** Another endpoint of the dialect (OpenAI's embeddings): true when it answered. */
  protected async other(_url: string, _body: Buffer, _res: http.ServerResponse): Promise<boolean> {
    return false;
  }

  script(userMessage: string, scenario: Scenario<Request, R>): void {
    this.scenarios.set(userMessage, scenario);
  }

  /** Requests whose last user message is `userMessage`. */
  requestsFor(userMessage: string): Request[] {
    return this.requests.filter((request) => lastUserMessage(this.turns(request)) === userMessage);
  }

  /** The names of the tools the first request for `userMessage` offered, sorted. */
  toolsOffered(userMessage: string): string[] {
    return this.toolNames(this.requestsFor(userMessage)[0]).sort();
  }

  /** When each answer to `userMessage` was being streamed, in the order the requests came. */
  answerSpansFor(userMessage: string): AnswerSpan[] {
    return this.spans.filter((span) => span.user === userMessage);
  }

  async start(): Promise<void> {
    // As the app's own server does, so that the app never sends a step's request on a connection this is closing:
    // with Node's 5 s (or 30 s) that happened under load, and the run failed with "other side closed".
    this.server = keepIdleConnections(http.createServer((req, res) => void this.handle(req, res)));
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
    if (await this.other(req.url ?? "", Buffer.concat(chunks), res)) return;
    if (req.url !== `/v1${this.endpoint}`) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as Request;
    this.requests.push(body);
    const turns = this.turns(body);
    const last = lastUserMessage(turns);
    const user = this.scenarios.has(last)
      ? last
      : (turns.find((turn) => turn.role === "user" && this.scenarios.has(turn.text))?.text ?? last);
    const span = { user, openedAt: performance.now(), closedAt: Number.NaN };
    this.spans.push(span);
    res.once("close", () => (span.closedAt = performance.now()));
    const scenario = this.scenarios.get(user);
    const step = stepsAfter(turns, user);
    const reply = typeof scenario === "function" ? scenario(step, body) : scenario?.[step];
    await this.respond(res, reply, step, user, body);
  }
}

type Scenario<Request, R> = R[] | ((step: number, body: Request) => R);

function lastUserMessage(turns: Turn[]): string {
  return turns.findLast((turn) => turn.role === "user")?.text ?? '""';
}

/** The model's answers after the last user message whose text is `user`. */
function stepsAfter(turns: Turn[], user: string): number {
  const index = turns.findLastIndex((turn) => turn.role === "user" && turn.text === user);
  return turns.slice(index + 1).filter((turn) => turn.role === "assistant").length;
}

export class ModelServer extends ScriptedServer<ChatRequest, Reply> {
  /** The texts of every /v1/embeddings request, in order. */
  readonly embeddingRequests: { model: string; input: string[] }[] = [];
  /** How texts are embedded; a test may replace it (with a model of meaning of its own). */
  embed: (text: string) => number[] = wordHashEmbedding;
  protected readonly endpoint = "/chat/completions";

  protected turns(body: ChatRequest): Turn[] {
    return body.messages.map((message) => ({
      role: message.role === "user" || message.role === "assistant" ? message.role : "other",
      text: messageText(message.content),
    }));
  }

  protected toolNames(body: ChatRequest): string[] {
    return body.tools!.map((tool) => tool.function.name);
  }

  protected respond(res: http.ServerResponse, reply: Reply | undefined, step: number, user: string, body: ChatRequest) {
    return respond(res, reply ?? { text: `No script for step ${step} of "${user}".` }, body.model);
  }

  protected override async other(url: string, raw: Buffer, res: http.ServerResponse): Promise<boolean> {
    if (url !== "/v1/embeddings") return false;
    const { model, input } = JSON.parse(raw.toString()) as { model: string; input: string | string[] };
    const texts = Array.isArray(input) ? input : [input];
    this.embeddingRequests.push({ model, input: texts });
    let data;
    try {
      data = texts.map((text, index) => ({ object: "embedding", index, embedding: this.embed(text) }));
    } catch (error) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
      return true;
    }
    const usage = { prompt_tokens: texts.length, total_tokens: texts.length };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ object: "list", data, model, usage }));
    return true;
  }
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

export function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** A message's text as a script keys it: a person's message with attachments is parts, its first the message itself. */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? (content as { type?: string; text?: string }[]) : [];
  return parts.find((part) => part.type === "text")?.text ?? JSON.stringify(content ?? "");
}
