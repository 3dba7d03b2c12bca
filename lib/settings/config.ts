/**
 * Every setting and limit, read from the environment once, with its default. The README's configuration table
 * mirrors this file.
 */
import os from "node:os";
import path from "node:path";

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  /** Characters of a tool's JSON result that leave the sandbox. */
  outputChars: number;
  /** Characters of console output that leave the sandbox. */
  consoleChars: number;
}

export interface FetchLimits {
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  maxRequestBytes: number;
  /** Host fetches per tool call. */
  maxRequestsPerCall: number;
}

export interface ModelConfig {
  apiKey?: string;
  baseURL?: string;
  model: string;
  /** Which client speaks to the server: see lib/agent/model.ts. */
  api: "chat" | "compatible" | "responses";
  /** Retries of a failed model request (HTTP 429/5xx, network). */
  maxRetries: number;
}

const env = (name: string) => {
  const value = process.env[name]?.trim();
  return value ? value : undefined;
};

function integer(name: string, fallback: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}

/** One limit for a tool's output: what leaves the sandbox is what the model and the trace see. */
const toolOutputChars = integer("TOOLSMITH_TOOL_OUTPUT_CHARS", 16_384, 256, 1_000_000);

function publicUrl(): string | undefined {
  const raw = env("TOOLSMITH_PUBLIC_URL");
  if (raw === undefined) return undefined;
  const url = URL.parse(raw);
  if (url?.protocol !== "http:" && url?.protocol !== "https:")
    throw new Error(`TOOLSMITH_PUBLIC_URL must be an http(s) URL; got "${raw}".`);
  return url.origin;
}

/** Origins from a comma-separated list of hosts (https assumed) or origins, e.g. "images.example.com,http://127.0.0.1:9000". */
function originList(name: string): string[] {
  return (env(name) ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const url = URL.parse(entry.includes("://") ? entry : `https://${entry}`);
      if (!url || (url.protocol !== "https:" && url.protocol !== "http:"))
        throw new Error(`${name}: "${entry}" is not a host or an http(s) origin.`);
      return url.origin;
    });
}

export const config = {
  maxSteps: integer("TOOLSMITH_MAX_STEPS", 8, 1, 100),
  /** Characters of one user message. */
  maxMessageChars: integer("TOOLSMITH_MAX_MESSAGE_CHARS", 32_000, 1, 1_000_000),
  /** Bytes of a request body to the API. */
  maxRequestBytes: 256 * 1024,
  /** A tool's output, as the model and the event log see it. */
  toolOutputChars,
  /** A model step that streams nothing for this long is a failure. */
  modelIdleTimeoutMs: integer("TOOLSMITH_MODEL_TIMEOUT_MS", 60_000, 1_000, 600_000),
  sandbox: {
    timeoutMs: integer("TOOLSMITH_TOOL_TIMEOUT_MS", 5_000, 50, 120_000),
    memoryBytes: integer("TOOLSMITH_TOOL_MEMORY_MB", 64, 8, 1024) * 1024 * 1024,
    stackBytes: 256 * 1024,
    outputChars: toolOutputChars,
    consoleChars: 8_192,
  } satisfies SandboxLimits,
  web: {
    /** The origin people use, e.g. https://toolsmith.example.com: share links and the same-origin check use it. */
    publicUrl: publicUrl(),
    /** Believe X-Forwarded-Host/-Proto/-For: only behind a reverse proxy that sets them. */
    trustProxy: env("TOOLSMITH_TRUST_PROXY") === "1",
    /** Origins whose images answers may show inline; any other image in model or tool text is only a link. */
    imageOrigins: originList("TOOLSMITH_IMAGE_HOSTS"),
  },
  /** Per identity; each client address gets three times as much (lib/http/rate-limit.ts). */
  rateLimits: {
    conversationsPerMinute: integer("TOOLSMITH_RATE_CONVERSATIONS_PER_MINUTE", 20, 1, 100_000),
    messagesPerMinute: integer("TOOLSMITH_RATE_MESSAGES_PER_MINUTE", 30, 1, 100_000),
    /** Event streams open at once on one instance (a browser tab follows one conversation). */
    openStreams: integer("TOOLSMITH_MAX_OPEN_STREAMS", 32, 1, 100_000),
  },
  /**
   * Events an SSE client has not taken yet: more than `bytes` for longer than `ms` (a reader that stalls, not one
   * catching up on a long log) and its stream is cut; the client resumes after the last event it got, instead of the
   * server holding a run's whole output for it. (server.mjs disconnects a client that takes nothing for `ms`.)
   */
  sseBacklog: { bytes: 1024 * 1024, ms: integer("TOOLSMITH_CLIENT_STALL_MS", 10_000, 100, 600_000) },
  /** Library tools offered to the model in one conversation, newest first (the conversation's own come on top). */
  maxLibraryTools: integer("TOOLSMITH_MAX_LIBRARY_TOOLS", 64, 0, 1000),
  sandboxWorkers: integer("TOOLSMITH_SANDBOX_WORKERS", Math.max(2, Math.min(os.availableParallelism(), 8)), 1, 64),
  fetch: {
    timeoutMs: integer("TOOLSMITH_FETCH_TIMEOUT_MS", 4_000, 100, 60_000),
    maxResponseBytes: integer("TOOLSMITH_FETCH_MAX_BYTES", 1024 * 1024, 1024, 50 * 1024 * 1024),
    maxRedirects: 5,
    maxRequestBytes: 64 * 1024,
    maxRequestsPerCall: 10,
  } satisfies FetchLimits,
  /** PostgreSQL connections per instance: the server's default limit of 100 leaves room for several instances. */
  databasePool: integer("TOOLSMITH_DB_POOL", 20, 1, 1000),
  /**
   * More PostgreSQL connections per instance, for the live path alone (lib/db/driver/client.ts' liveSql): event writes,
   * followers' reads, lease renewals, notifications. Its statements are few and short.
   */
  liveDatabasePool: 4,
  /** How long a run's lease lasts without a heartbeat: past it, another instance takes the run over. */
  leaseMs: integer("TOOLSMITH_LEASE_MS", 10_000, 500, 600_000),
  /**
   * A PostgreSQL statement that runs this long is cancelled, and one whose connection stays silent a second longer
   * fails and the connection leaves the pool: a connection gone silent (a partition that healed without resetting
   * it) would hold its statement, and its place in the pool, until TCP gives up, some 15 minutes. The live path's
   * statements wait a quarter of the lease at most (lib/db/driver/client.ts).
   */
  databaseQueryTimeoutMs: integer("TOOLSMITH_DB_QUERY_TIMEOUT_MS", 30_000, 100, 3_600_000),
  /** The librarian tools' XML documents (lib/librarian). */
  librarian: {
    maxDocumentBytes: integer("TOOLSMITH_LIBRARIAN_DOCUMENT_KB", 1024, 1, 64 * 1024) * 1024,
    maxDocumentsPerOwner: integer("TOOLSMITH_LIBRARIAN_MAX_DOCUMENTS", 10_000, 1, 10_000_000),
    /** Documents one query reads: a larger collection must be narrowed. */
    maxQueryDocuments: integer("TOOLSMITH_LIBRARIAN_QUERY_DOCUMENTS", 2_000, 1, 1_000_000),
    /** A query (or a document check) that runs longer has its thread terminated. */
    timeoutMs: integer("TOOLSMITH_LIBRARIAN_TIMEOUT_MS", 3_000, 50, 120_000),
    memoryMb: 256,
    maxResults: 1_000,
    maxQueryChars: 16 * 1024,
  },
};

/** The model to talk to, or undefined when none is configured (the app still runs; a message gets an error). */
export function modelConfig(): ModelConfig | undefined {
  const apiKey = env("OPENAI_API_KEY");
  const baseURL = env("OPENAI_BASE_URL");
  if (!apiKey && !baseURL) return undefined;
  return {
    apiKey,
    baseURL,
    model: env("TOOLSMITH_MODEL") ?? "gpt-4.1-mini",
    api: modelApi(env("TOOLSMITH_MODEL_API"), baseURL),
    maxRetries: integer("TOOLSMITH_MODEL_RETRIES", 2, 0, 10),
  };
}

/** Explicit, or by server: OpenAI's own gets the strict OpenAI client, any other the compatible dialect. */
function modelApi(value: string | undefined, baseURL: string | undefined): ModelConfig["api"] {
  if (value === "chat" || value === "compatible" || value === "responses") return value;
  if (value !== undefined)
    throw new Error(`TOOLSMITH_MODEL_API must be chat, compatible or responses; got "${value}".`);
  if (baseURL === undefined) return "chat";
  const url = URL.parse(baseURL);
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new Error(`OPENAI_BASE_URL must be an http(s) URL such as http://localhost:11434/v1; got "${baseURL}".`);
  }
  return url.hostname === "api.openai.com" ? "chat" : "compatible";
}

export const MODEL_SETUP_HINT =
  "No model is configured. Set OPENAI_API_KEY (and optionally TOOLSMITH_MODEL) for OpenAI, or OPENAI_BASE_URL " +
  "(e.g. http://localhost:11434/v1 for Ollama) and TOOLSMITH_MODEL for an OpenAI-compatible server, then restart.";

export type DatabaseConfig = { provider: "sqlite"; file: string } | { provider: "postgresql"; url: string };

/**
 * The database DATABASE_URL names: `file:` for SQLite (the default; the path resolved from the working directory,
 * as the Prisma CLI does), `postgresql://` (or `postgres://`) for PostgreSQL.
 */
export function databaseConfig(url = process.env.DATABASE_URL?.trim() || "file:./data/toolsmith.db"): DatabaseConfig {
  if (url.startsWith("file:")) return { provider: "sqlite", file: path.resolve(url.slice("file:".length)) };
  if (/^postgres(ql)?:\/\//.test(url)) return { provider: "postgresql", url };
  throw new Error(
    `DATABASE_URL must be a file: URL (SQLite) or a postgresql:// URL; got "${url.replace(/\/\/[^@/]*@/, "//…@")}".`,
  );
}

/** Where the app keeps its files: TOOLSMITH_DATA_DIR, else the SQLite database's directory, else ./data. */
export function dataDirectory(): string {
  const database = databaseConfig();
  return path.resolve(
    env("TOOLSMITH_DATA_DIR") ?? (database.provider === "sqlite" ? path.dirname(database.file) : "data"),
  );
}

/** The file tools' workspaces, one directory per conversation. */
export function workspacesDirectory(): string {
  // Chosen when the server runs: nothing for Next's build to trace (see profiles.ts).
  return path.resolve(
    /* turbopackIgnore: true */ env("TOOLSMITH_WORKSPACES_DIR") ?? path.join(dataDirectory(), "workspaces"),
  );
}
