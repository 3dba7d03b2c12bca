import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import type { Tool, Transport } from "@modelcontextprotocol/client";
import packageJson from "@/package.json";
import { processWide } from "@/lib/platform/process-wide";
import { DROPPED_HEADERS, FetchBlockedError, HostRefusedError } from "@/lib/sandbox/fetch-guard";
import { mcpClientLimits, type McpClientLimits } from "@/lib/settings/config";
import { ANYWHERE, formatBytes, personalServerRule, serverFetch, type ServerFetch } from "./http";
import { callResult, type McpCallResult } from "./result";
import { isStdioSpec, McpClientError, serverLabel, specKey, specProblem, type McpServerSpec } from "./spec";
import { stdioTransport, type StderrLog } from "./stdio";
import { toolInfos, type McpToolInfo, type SkippedTool } from "./tools";

export interface McpCallOptions {
  signal?: AbortSignal;
  /** The call's wall clock (the caller passes TOOLSMITH_TOOL_TIMEOUT_MS). */
  timeoutMs: number;
  /** The request's `_meta`, e.g. `{ traceparent }`. */
  meta?: Record<string, unknown>;
}

export interface McpServerStatus {
  state: "idle" | "connecting" | "ready" | "failed";
  error?: string;
  toolCount?: number;
  /** Tools the server has that are not offered, and why. */
  skipped?: SkippedTool[];
}

export interface McpPoolOptions {
  limits?: McpClientLimits;
  /** Injected in tests (a name that stands for a public host); the system resolver otherwise. */
  resolve?: (hostname: string) => Promise<string[]>;
}

/** Pages of tools/list read at most, whatever a server's cursors say. */
const MAX_PAGES = 200;

/**
 * The connections to MCP servers, one per spec content: opened at first use, kept, and opened again after they end.
 * `tools` and `call` are what a run's tool source asks; `status` is what a settings page shows.
 */
export class McpClientPool {
  private readonly connections = new Map<string, Connection>();
  readonly limits: McpClientLimits;

  constructor(private readonly options: McpPoolOptions = {}) {
    this.limits = options.limits ?? mcpClientLimits();
  }

  /**
   * The server's tools, listed at first use and again after it says `notifications/tools/list_changed`. Throws an
   * `McpClientError` (its message names the server and what happened) when the server cannot be reached, started or
   * listed, or its spec is refused.
   */
  async tools(spec: McpServerSpec): Promise<McpToolInfo[]> {
    return this.connection(spec).tools();
  }

  /** Calls the server's tool `tool` (its own name, not the qualified one). Never throws: a failure is `ok: false`. */
  async call(spec: McpServerSpec, tool: string, args: object, options: McpCallOptions): Promise<McpCallResult> {
    try {
      return await this.connection(spec).call(tool, args, options);
    } catch (error) {
      return { ok: false, error: error instanceof McpClientError ? error.message : describeFailure(spec, error) };
    }
  }

  /**
   * A new connection to the server and a new listing, as adding a server and Refresh ask, within the connect
   * timeout: its status then, connected or why not. Never throws. Calls in flight on the old connection finish on it.
   */
  async refresh(spec: McpServerSpec): Promise<McpServerStatus> {
    const key = specKey(spec);
    const previous = this.connections.get(key);
    this.connections.delete(key);
    void previous?.retire();
    // A failure is what the status says.
    await this.tools(spec).catch(() => undefined);
    return this.status(spec);
  }

  status(spec: McpServerSpec): McpServerStatus {
    const problem = specProblem(spec);
    if (problem) return { state: "failed", error: problem };
    return this.connections.get(specKey(spec))?.status() ?? { state: "idle" };
  }

  /** The tools the server listed last, without asking it: none before its first use. */
  listed(spec: McpServerSpec): McpToolInfo[] | undefined {
    return this.connections.get(specKey(spec))?.listed();
  }

  async close(spec: McpServerSpec): Promise<void> {
    const key = specKey(spec);
    const connection = this.connections.get(key);
    this.connections.delete(key);
    await connection?.close();
  }

  async closeAll(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  private connection(spec: McpServerSpec): Connection {
    const problem = specProblem(spec);
    if (problem) throw new McpClientError(spec.name, problem);
    const key = specKey(spec);
    let connection = this.connections.get(key);
    if (!connection) this.connections.set(key, (connection = new Connection(spec, this.limits, this.options.resolve)));
    return connection;
  }
}

interface Session {
  client: Client;
  /** Why this side ended the session (an oversized message, a failure that leaves it in doubt). */
  endedBecause?: string;
  /** Why the other side ended it (a stdio server's process exited). */
  closedBecause?: string;
  /** The server no longer knew it (see `lostSession`). */
  lost?: boolean;
  /** The server wrote something that is not a JSON-RPC message (said if a request then times out). */
  malformed?: boolean;
  ended: boolean;
  stderr?: StderrLog;
  http?: ServerFetch;
}

interface Listing {
  tools: McpToolInfo[];
  skipped: SkippedTool[];
  /** The server's definitions by name, for the SDK's check of structured results against the output schema. */
  definitions: Map<string, Tool>;
  generation: number;
}

/** One server: its live session (or the attempt at one), its listed tools, and what went wrong last. */
class Connection {
  private session?: Session;
  private opening?: Promise<Session>;
  private listing?: Listing;
  private pendingListing?: Promise<Listing>;
  /** Counts `tools/list_changed`: a listing made before the latest is stale. */
  private generation = 0;
  private lastError?: string;
  /** The live session's last tools/list failed: its tools are not known. */
  private listFailed = false;
  /** The session being opened, so that `close` can end it too. */
  private pending?: Session;
  private callsInFlight = 0;
  /** Replaced by a refresh: closed once its last call in flight ends. */
  private retired = false;

  constructor(
    private readonly spec: McpServerSpec,
    private readonly limits: McpClientLimits,
    private readonly resolve?: (hostname: string) => Promise<string[]>,
  ) {}

  private get label() {
    return serverLabel(this.spec);
  }

  status(): McpServerStatus {
    const state = this.opening
      ? "connecting"
      : this.session && !this.listFailed
        ? "ready"
        : this.lastError
          ? "failed"
          : "idle";
    return {
      state,
      ...(this.lastError && state !== "ready" ? { error: this.lastError } : {}),
      ...(this.listing ? { toolCount: this.listing.tools.length } : {}),
      ...(this.listing?.skipped.length ? { skipped: this.listing.skipped } : {}),
    };
  }

  async tools(): Promise<McpToolInfo[]> {
    return (await this.currentListing()).tools;
  }

  listed(): McpToolInfo[] | undefined {
    return this.listing?.tools;
  }

  private async currentListing(retry = true): Promise<Listing> {
    const reused = Boolean(this.session && !this.session.ended);
    const session = await this.open();
    if (this.listing && this.listing.generation === this.generation) return this.listing;
    this.pendingListing ??= this.list(session).finally(() => (this.pendingListing = undefined));
    try {
      return await this.pendingListing;
    } catch (error) {
      if (!(retry && reused && session.lost)) throw error;
      return this.currentListing(false);
    }
  }

  async call(tool: string, args: object, options: McpCallOptions): Promise<McpCallResult> {
    this.callsInFlight++;
    try {
      return await this.attempt(tool, args, options);
    } finally {
      if (--this.callsInFlight === 0 && this.retired) void this.close();
    }
  }

  /** Closes now, or once the calls in flight have ended. */
  retire(): Promise<void> {
    this.retired = true;
    return this.callsInFlight === 0 ? this.close() : Promise.resolve();
  }

  private async attempt(tool: string, args: object, options: McpCallOptions): Promise<McpCallResult> {
    const reused = Boolean(this.session && !this.session.ended);
    const started = Date.now();
    // The call's time limit and signal cover connecting too; the attempt goes on for the next use.
    const opened = await settle(this.open(), options.timeoutMs, options.signal);
    if (opened === "aborted") return { ok: false, error: `The call to ${this.label} was cancelled.` };
    if (opened === "timeout")
      return { ok: false, error: `${this.label} did not connect within the call's ${options.timeoutMs} ms.` };
    const session = opened.session;
    const remaining = Math.max(1, options.timeoutMs - (Date.now() - started));
    try {
      return callResult(await this.send(session, tool, args, { ...options, timeoutMs: remaining }));
    } catch (error) {
      if (options.signal?.aborted) return { ok: false, error: `The call to ${this.label} was cancelled.` };
      if (reused && lostSession(error)) {
        this.end(session, describeFailure(this.spec, error));
        return this.attempt(tool, args, options);
      }
      let message = describeFailure(this.spec, error, reasonOf(session, error), options.timeoutMs);
      if (session.malformed && error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        message += " It sent a message that is not JSON-RPC, which may have been its answer.";
      // A transport failure leaves the session in doubt: the next use opens a new one.
      if (isTransportFailure(error)) this.end(session, message);
      return { ok: false, error: message };
    }
  }

  private send(session: Session, tool: string, args: object, options: McpCallOptions) {
    return session.client.callTool(
      { name: tool, arguments: args as Record<string, unknown>, ...(options.meta ? { _meta: options.meta } : {}) },
      {
        timeout: options.timeoutMs,
        maxTotalTimeout: options.timeoutMs,
        signal: options.signal,
        toolDefinition: this.listing?.definitions.get(tool),
      },
    );
  }

  private open(): Promise<Session> {
    if (this.session && !this.session.ended) return Promise.resolve(this.session);
    this.opening ??= this.connect().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async connect(): Promise<Session> {
    const client = new Client({ name: "toolsmith", version: packageJson.version }, { capabilities: {} });
    const session: Session = { client, ended: false };
    this.pending = session;
    let transport: Transport;
    if (isStdioSpec(this.spec)) {
      const stdio = stdioTransport(this.spec, this.limits);
      transport = stdio.transport;
      session.stderr = stdio.stderr;
    } else {
      const rule = this.spec.trusted ? ANYWHERE : personalServerRule(this.limits.privateHosts);
      session.http = serverFetch(
        rule,
        this.limits.maxMessageBytes,
        (error) => this.end(session, `${this.label} ${error.message}.`),
        this.resolve,
      );
      transport = new StreamableHTTPClientTransport(new URL(this.spec.url), {
        fetch: session.http.fetch,
        requestInit: { headers: requestHeaders(this.spec.headers) },
        // A lost notification stream is opened again once; the calls themselves do not depend on it.
        reconnectionOptions: {
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 5_000,
          reconnectionDelayGrowFactor: 2,
          maxRetries: 1,
        },
      });
    }
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      this.generation++;
    });
    client.onclose = () => {
      if (session.ended) return;
      const last = session.stderr?.lastLine();
      session.closedBecause = isStdioSpec(this.spec)
        ? `${this.label}'s process exited${last ? ` (its last words: ${last})` : ""}.`
        : `${this.label} closed the connection.`;
      // While connecting, the failure that closed it is the better sentence: connect() says it.
      if (this.session === session) this.end(session, session.closedBecause);
    };
    client.onerror = (error) => {
      // A line of JSON that is not JSON-RPC: the SDK drops it, and a request it answered never ends.
      if (error.name === "ZodError" || error.message.startsWith("Unknown message type")) session.malformed = true;
      // The stdio transport's read buffer refuses a message over maxBufferSize and closes: that is the reason.
      if (/ReadBuffer exceeded/.test(error.message))
        session.endedBecause ??= `${this.label} sent a message over the ${formatBytes(this.limits.maxMessageBytes)} limit.`;
    };
    try {
      await client.connect(transport, { timeout: this.limits.connectTimeoutMs });
    } catch (error) {
      const message = describeFailure(
        this.spec,
        error,
        reasonOf(session, error),
        this.limits.connectTimeoutMs,
        "connect",
      );
      this.end(session, message);
      throw new McpClientError(this.spec.name, message);
    } finally {
      if (this.pending === session) this.pending = undefined;
    }
    if (session.ended)
      throw new McpClientError(this.spec.name, session.endedBecause ?? `${this.label} ended the connection.`);
    this.session = session;
    [this.lastError, this.listFailed] = [undefined, false];
    return session;
  }

  /** Pages through tools/list, within the limits; the SDK's own walk would hold every page first. */
  private async list(session: Session): Promise<Listing> {
    const generation = this.generation;
    const raw: Tool[] = [];
    const signal = AbortSignal.timeout(this.limits.connectTimeoutMs);
    try {
      if (session.client.getServerCapabilities()?.tools) {
        const seen = new Set<string>();
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES && raw.length <= this.limits.maxTools; page++) {
          const result = await session.client.request(
            { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
            { timeout: this.limits.connectTimeoutMs, signal },
          );
          raw.push(...result.tools);
          cursor = result.nextCursor;
          if (cursor === undefined || seen.has(cursor)) break;
          seen.add(cursor);
        }
      }
    } catch (error) {
      const message = describeFailure(this.spec, error, reasonOf(session, error), this.limits.connectTimeoutMs, "list");
      session.lost = lostSession(error);
      if (session.lost || isTransportFailure(error)) this.end(session, message);
      else if (session === this.session) [this.lastError, this.listFailed] = [message, true];
      throw new McpClientError(this.spec.name, message);
    }
    const { tools, skipped } = toolInfos(this.spec.name, raw, this.limits);
    const kept = new Set(tools.map((tool) => tool.name));
    const listing: Listing = {
      tools,
      skipped,
      definitions: new Map(raw.filter((tool) => kept.has(tool.name)).map((tool) => [tool.name, tool])),
      generation,
    };
    if (session === this.session) [this.listing, this.listFailed, this.lastError] = [listing, false, undefined];
    return listing;
  }

  /** Ends a session for good (its calls in flight fail with `reason`); the next use opens a new one. */
  private end(session: Session, reason: string): void {
    if (session.ended) return;
    session.ended = true;
    session.endedBecause ??= reason;
    this.lastError = session.endedBecause;
    if (this.session === session) {
      this.session = undefined;
      // A restarted server may have other tools.
      this.listing = undefined;
    }
    void session.client.close().catch(() => undefined);
    session.http?.close();
  }

  /** Ends the session, and an attempt at one (whose connect then fails), without waiting for the attempt. */
  async close(): Promise<void> {
    const sessions = [this.session, this.pending].filter((session): session is Session => Boolean(session));
    [this.session, this.pending, this.listing] = [undefined, undefined, undefined];
    this.lastError = undefined;
    await Promise.all(
      sessions.map(async (session) => {
        session.ended = true;
        session.endedBecause ??= `${this.label} was closed.`;
        await session.client.close().catch(() => undefined);
        session.http?.close();
      }),
    );
  }
}

/** An entry's headers, without those that would forge the connection (Host, Transfer-Encoding…). */
function requestHeaders(headers: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
}

/** `work`'s value, or which came first of the time limit and the signal; `work`'s failure is thrown. */
async function settle<T>(
  work: Promise<T>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ session: T } | "timeout" | "aborted"> {
  if (signal?.aborted) return "aborted";
  let cleanup = () => undefined as void;
  const stopped = new Promise<"timeout" | "aborted">((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), timeoutMs);
    const abort = () => resolve("aborted");
    signal?.addEventListener("abort", abort, { once: true });
    cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
    };
  });
  const outcome = work.then((session) => ({ session }));
  // Settled after the race is lost, its failure is the next use's to see.
  outcome.catch(() => undefined);
  try {
    return await Promise.race([outcome, stopped]);
  } finally {
    cleanup();
  }
}

/** What ended the session, when the error is its end rather than a failure of its own. */
function reasonOf(session: Session, error: unknown): string | undefined {
  const closed = error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
  return session.endedBecause ?? (closed ? session.closedBecause : undefined);
}

/**
 * A server that restarted refuses an old session without running the request (404 as the spec says, or 400 as some
 * servers do, server-everything among them): the request is made once more, on a new session.
 */
const lostSession = (error: unknown) => error instanceof SdkHttpError && (error.status === 404 || error.status === 400);

/** Failures of the connection itself, rather than of one request on a sound one. */
function isTransportFailure(error: unknown): boolean {
  if (error instanceof ProtocolError) return false;
  // A lost session (404) or a server in trouble (5xx); another status would come again on a new session.
  if (error instanceof SdkHttpError) return error.status === 404 || (error.status ?? 0) >= 500;
  if (error instanceof SdkError)
    return (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.SendFailed ||
      error.code === SdkErrorCode.NotConnected
    );
  return !(error instanceof McpClientError);
}

/** Codes of Node's network and process errors, said for a person. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: "refused the connection (nothing listens there)",
  ENOTFOUND: "cannot be found: its host name does not resolve",
  EAI_AGAIN: "cannot be found: its host name did not resolve in time",
  ECONNRESET: "dropped the connection",
  EPIPE: "dropped the connection",
  ETIMEDOUT: "did not accept the connection in time",
  EHOSTUNREACH: "cannot be reached (no route to its host)",
  ENETUNREACH: "cannot be reached (no route to its network)",
  ENOENT: "could not be started: its command was not found",
  EACCES: "could not be started: its command may not be run",
  UND_ERR_SOCKET: "dropped the connection",
};

/** A sentence that names the server and says what happened, for the model or a status line. */
export function describeFailure(
  spec: McpServerSpec,
  error: unknown,
  endedBecause?: string,
  timeoutMs?: number,
  phase: "connect" | "list" | "call" = "call",
): string {
  const label = serverLabel(spec);
  const doing = phase === "connect" ? "connecting" : phase === "list" ? "listing its tools" : "calling a tool";
  if (error instanceof McpClientError) return error.message;
  if (endedBecause) return phase === "call" ? `${endedBecause} The call did not finish.` : endedBecause;
  if (error instanceof SdkHttpError && typeof error.status === "number") {
    // The SDK says why it did not follow a redirect in its message; otherwise the body says most.
    const reason = error.message.replace(/^Error \w+ to endpoint(?: \(HTTP \d+\))?:\s*/, "");
    const redirect = error.status >= 300 && error.status < 400;
    const said = (redirect ? reason : httpText(error.data)) || reason || error.statusText;
    const hint = error.status === 401 || error.status === 403 ? " Check the headers (the token) it is given." : "";
    return `${label} answered HTTP ${error.status} while ${doing}${said ? `: ${brief(said)}` : "."}${hint}`;
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return `${label} did not answer ${phase === "call" ? "the call" : doing} within ${timeoutMs} ms.`;
    if (error.code === SdkErrorCode.ConnectionClosed)
      return `${label} closed the connection${phase === "call" ? " during the call" : ` while ${doing}`}.`;
    if (error.code === SdkErrorCode.InvalidResult) return `${label} sent a malformed answer: ${brief(error.message)}`;
  }
  if (error instanceof ProtocolError) {
    // The SDK checks a result against the method's schema and reports a mismatch as a protocol error.
    if (/^Invalid [\w/]+ result/.test(error.message))
      return `${label} sent a malformed answer: ${brief(zodSummary(error.message))}`;
    return `${label} answered with an error: ${brief(error.message)}`;
  }
  for (let cause: unknown = error, depth = 0; cause && depth < 5; cause = (cause as Error).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (cause instanceof FetchBlockedError)
      return `${label} may not be reached: ${brief(cause.message)}${cause instanceof HostRefusedError ? " A person's server must be on a public address unless the operator lists its host in TOOLSMITH_MCP_PRIVATE_HOSTS." : ""}`;
    if (typeof code === "string" && NETWORK[code])
      return `${label} ${NETWORK[code]}${"url" in spec ? ` (${spec.url})` : ` (${spec.command})`}.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const status = /HTTP (\d{3})/.exec(message)?.[1];
  if (status)
    return `${label} answered HTTP ${status} while ${doing}: ${brief(message.replace(/^.*?HTTP \d{3}\)?:?\s*/, ""))}`;
  if (error instanceof SyntaxError || /JSON|invalid_|expected/i.test(message))
    return `${label} sent a malformed answer while ${doing}: ${brief(message)}`;
  return `${label} failed while ${doing}: ${brief(message)}`;
}

/** What an HTTP error's body says: its `error.message` when it is JSON that has one, else its text. */
function httpText(data: unknown): string {
  const text = (data as { text?: unknown } | undefined)?.text;
  if (typeof text !== "string") return "";
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === "object" ? body.error?.message : (body.error ?? body.message);
    if (typeof message === "string") return message;
  } catch {
    // not JSON: the text itself
  }
  return text;
}

/** "Invalid tools/call result: [{ path, message }…]" said as "content: Invalid input: expected array…". */
function zodSummary(message: string): string {
  const start = message.indexOf("[");
  try {
    const issues = JSON.parse(message.slice(start)) as { path: PropertyKey[]; message: string }[];
    return issues.map((issue) => `${issue.path.join(".") || "the result"}: ${issue.message}`).join("; ");
  } catch {
    return message;
  }
}

const brief = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
};

/** The process's pool, limits from the settings. */
export const mcpClients: McpClientPool = processWide("mcpClients", () => new McpClientPool());
