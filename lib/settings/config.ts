/**
 * Every setting and limit: the environment's, as lib/settings/environment.mjs parses it (with their defaults and
 * ranges), and the fixed ones.
 */
import path from "node:path";
import { environment, openaiDialect } from "./environment.mjs";

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
  api: "chat" | "compatible" | "responses" | "anthropic";
  /** Retries of a failed model request (HTTP 429/5xx, network). */
  maxRetries: number;
  /** Claude's extended-thinking budget per step (0: none); the other dialects do not read it. */
  thinkingTokens?: number;
}

// The limits are fixed when this module loads; the functions below ask environment() when called, which is the same
// parse unless process.env was replaced.
const settings = environment();

export const config = {
  maxSteps: settings.TOOLSMITH_MAX_STEPS,
  /** Attempts at writing a tool from a description: the first, then repairs. */
  generateAttempts: settings.TOOLSMITH_GENERATE_ATTEMPTS,
  /** Characters of one user message. */
  maxMessageChars: settings.TOOLSMITH_MAX_MESSAGE_CHARS,
  /** Bytes of a request body to the API. */
  maxRequestBytes: 256 * 1024,
  /** A tool's output, as the model and the event log see it. */
  toolOutputChars: settings.TOOLSMITH_TOOL_OUTPUT_CHARS,
  /** A model step that streams nothing for this long is a failure. */
  modelIdleTimeoutMs: settings.TOOLSMITH_MODEL_TIMEOUT_MS,
  sandbox: {
    timeoutMs: settings.TOOLSMITH_TOOL_TIMEOUT_MS,
    memoryBytes: settings.TOOLSMITH_TOOL_MEMORY_MB * 1024 * 1024,
    stackBytes: 256 * 1024,
    outputChars: settings.TOOLSMITH_TOOL_OUTPUT_CHARS,
    consoleChars: 8_192,
  } satisfies SandboxLimits,
  web: {
    /** The origin people use, e.g. https://toolsmith.example.com: share links and the same-origin check use it. */
    publicUrl: settings.TOOLSMITH_PUBLIC_URL,
    /** Believe X-Forwarded-Host/-Proto/-For: only behind a reverse proxy that sets them. */
    trustProxy: settings.TOOLSMITH_TRUST_PROXY,
    /** Origins whose images answers may show inline; any other image in model or tool text is only a link. */
    imageOrigins: settings.TOOLSMITH_IMAGE_HOSTS,
  },
  /** The labels of annotations (lib/review/), in the order reviewers are offered them. */
  annotationLabels: settings.TOOLSMITH_ANNOTATION_LABELS,
  /** Per identity; each client address gets three times as much (lib/http/rate-limit.ts). */
  rateLimits: {
    conversationsPerMinute: settings.TOOLSMITH_RATE_CONVERSATIONS_PER_MINUTE,
    messagesPerMinute: settings.TOOLSMITH_RATE_MESSAGES_PER_MINUTE,
    reviewsPerMinute: settings.TOOLSMITH_RATE_REVIEWS_PER_MINUTE,
    /** Event streams open at once on one instance (a browser tab follows one conversation). */
    openStreams: settings.TOOLSMITH_MAX_OPEN_STREAMS,
  },
  /**
   * Events an SSE client has not taken yet: more than `bytes` for longer than `ms` (a reader that stalls, not one
   * catching up on a long log) and its stream is cut; the client resumes after the last event it got, instead of the
   * server holding a run's whole output for it. (server.mjs disconnects a client that takes nothing for `ms`.)
   */
  sseBacklog: { bytes: 1024 * 1024, ms: settings.TOOLSMITH_CLIENT_STALL_MS },
  /** Library tools offered to the model in a run: the best matches for its message (the conversation's own come on top). */
  retrievedTools: settings.TOOLSMITH_RETRIEVED_TOOLS,
  sandboxWorkers: settings.TOOLSMITH_SANDBOX_WORKERS,
  /** tools.call calls one call of a tool's code may make (each waits for its tool): a loop over a list, not a flood. */
  toolCallsPerCall: 50,
  python: {
    workers: settings.TOOLSMITH_PYTHON_WORKERS,
    /** Start the processes with the server, rather than at the first Python call. */
    warmAtStart: settings.TOOLSMITH_PYTHON_WARM,
    /** Tests only: the policy check is skipped, so that the sandbox's own hold is what is tested. */
    skipPolicy: settings.TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY,
  },
  fetch: {
    timeoutMs: settings.TOOLSMITH_FETCH_TIMEOUT_MS,
    maxResponseBytes: settings.TOOLSMITH_FETCH_MAX_BYTES,
    maxRedirects: 5,
    maxRequestBytes: 64 * 1024,
    maxRequestsPerCall: 10,
  } satisfies FetchLimits,
  files: {
    maxFileBytes: settings.TOOLSMITH_FILE_MAX_MB * 1024 * 1024,
    maxConversationBytes: settings.TOOLSMITH_CONVERSATION_FILES_MAX_MB * 1024 * 1024,
    maxIdentityBytes: settings.TOOLSMITH_IDENTITY_FILES_MAX_MB * 1024 * 1024,
    maxPerMessage: settings.TOOLSMITH_MESSAGE_MAX_FILES,
    uploadsPerMinute: settings.TOOLSMITH_RATE_UPLOADS_PER_MINUTE,
    /** Where the bytes go: S3 when a bucket is configured, else the database. */
    s3: settings.TOOLSMITH_FILES_S3_URL
      ? {
          url: settings.TOOLSMITH_FILES_S3_URL,
          accessKeyId: settings.TOOLSMITH_FILES_S3_ACCESS_KEY_ID,
          secretAccessKey: settings.TOOLSMITH_FILES_S3_SECRET_ACCESS_KEY,
          region: settings.TOOLSMITH_FILES_S3_REGION,
        }
      : undefined,
  },
  /** PostgreSQL connections per instance: the server's default limit of 100 leaves room for several instances. */
  databasePool: settings.TOOLSMITH_DB_POOL,
  /**
   * More PostgreSQL connections per instance, for the live path alone (lib/db/driver/client.ts' liveSql): event writes,
   * followers' reads, lease renewals, notifications. Its statements are few and short.
   */
  liveDatabasePool: 4,
  /** How long a run's lease lasts without a heartbeat: past it, another instance takes the run over. */
  leaseMs: settings.TOOLSMITH_LEASE_MS,
  /**
   * A PostgreSQL statement that runs this long is cancelled; one whose connection stays silent a second longer fails
   * and its connection leaves the pool, instead of holding it until TCP gives up. On the live pool: a quarter lease.
   */
  databaseQueryTimeoutMs: settings.TOOLSMITH_DB_QUERY_TIMEOUT_MS,
  /** US dollars per million input and output tokens, by model id: each run's cost; a model without one, tokens only. */
  modelPrices: settings.TOOLSMITH_MODEL_PRICES,
  /** The librarian tools' XML documents (lib/librarian). */
  librarian: {
    maxDocumentBytes: settings.TOOLSMITH_LIBRARIAN_DOCUMENT_KB * 1024,
    maxDocumentsPerOwner: settings.TOOLSMITH_LIBRARIAN_MAX_DOCUMENTS,
    /** Documents one query reads: a larger collection must be narrowed. */
    maxQueryDocuments: settings.TOOLSMITH_LIBRARIAN_QUERY_DOCUMENTS,
    /** A query (or a document check) that runs longer has its thread terminated. */
    timeoutMs: settings.TOOLSMITH_LIBRARIAN_TIMEOUT_MS,
    memoryMb: 256,
    maxResults: 1_000,
    maxQueryChars: 16 * 1024,
  },
};

/** The model to talk to, or undefined when none is configured (the app still runs; a message gets an error). */
export function modelConfig(): ModelConfig | undefined {
  const current = environment();
  const model = current.TOOLSMITH_MODEL;
  const maxRetries = current.TOOLSMITH_MODEL_RETRIES;
  const { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: baseURL } = current;
  const anthropic = current.ANTHROPIC_API_KEY !== undefined || current.ANTHROPIC_BASE_URL !== undefined;
  const chosen = current.TOOLSMITH_MODEL_API;
  // Unless chosen: Claude when its key is there and the model is Claude's or no OpenAI server is configured.
  if (chosen === "anthropic" || (!chosen && anthropic && (model.startsWith("claude-") || (!apiKey && !baseURL))))
    return {
      apiKey: current.ANTHROPIC_API_KEY,
      baseURL: current.ANTHROPIC_BASE_URL,
      model,
      api: "anthropic",
      maxRetries,
      thinkingTokens: current.TOOLSMITH_THINKING_TOKENS,
    };
  if (!apiKey && !baseURL) return undefined;
  return { apiKey, baseURL, model, api: chosen ?? openaiDialect(baseURL), maxRetries };
}

/** Limits of the MCP client (lib/mcp-client/): the environment's, and the fixed ones. */
export interface McpClientLimits {
  /** Start or reach a server and finish its handshake; also a whole tools/list walk. */
  connectTimeoutMs: number;
  /** One message from a server (a result, a page of tools), cut off on the wire past it. */
  maxMessageBytes: number;
  /** Tools kept of one server; the rest are left out (its status says how many). */
  maxTools: number;
  /** A tool's input or output schema, as JSON: a larger one leaves the tool out. */
  maxSchemaBytes: number;
  /** A tool's description, cut past it. */
  maxDescriptionChars: number;
  /** A stdio server's stderr that reaches the app's log, per connection. */
  maxStderrBytes: number;
  /** Hosts, addresses and CIDR ranges where a person's server may be although not public. */
  privateHosts: string[];
}

export function mcpClientLimits(env: Record<string, string | undefined> = process.env): McpClientLimits {
  const settings = environment(env);
  return {
    connectTimeoutMs: settings.TOOLSMITH_MCP_CONNECT_TIMEOUT_MS,
    maxMessageBytes: settings.TOOLSMITH_MCP_MAX_RESULT_BYTES,
    maxTools: 1_000,
    maxSchemaBytes: 64 * 1024,
    maxDescriptionChars: 4_096,
    maxStderrBytes: 16 * 1024,
    privateHosts: settings.TOOLSMITH_MCP_PRIVATE_HOSTS,
  };
}

/** The embedding model tool retrieval uses beside full text, on the chat model's server; undefined: full text alone. */
export function embeddingConfig(): (ModelConfig & { api: "chat" | "compatible" }) | undefined {
  const model = environment().TOOLSMITH_EMBEDDING_MODEL;
  const chat = modelConfig();
  // Anthropic has no embeddings API: retrieval by words alone.
  if (!model || !chat || chat.api === "anthropic") return undefined;
  // The Responses API has no embeddings: its server's embeddings endpoint is OpenAI's own.
  return { ...chat, model, api: chat.api === "compatible" ? "compatible" : "chat" };
}

/** The key that signs identity cookies, when set; each instance otherwise makes its own (lib/http/identity.ts). */
export const identitySecret = (): string | undefined => environment().TOOLSMITH_SECRET;

export type AuthMode = "anonymous" | "optional" | "required";

/**
 * Accounts (lib/accounts/): whether people may or must sign in, whose addresses may have an account, who the admins
 * are, and the single sign-on provider when one is set.
 */
export function authConfig() {
  const settings = environment();
  const issuer = settings.TOOLSMITH_OIDC_ISSUER;
  const clientId = settings.TOOLSMITH_OIDC_CLIENT_ID;
  return {
    mode: settings.TOOLSMITH_AUTH as AuthMode,
    allowedDomains: settings.TOOLSMITH_ALLOWED_EMAIL_DOMAINS,
    adminEmails: settings.TOOLSMITH_ADMIN_EMAILS,
    oidc:
      issuer && clientId
        ? { issuer, clientId, clientSecret: settings.TOOLSMITH_OIDC_CLIENT_SECRET, name: settings.TOOLSMITH_OIDC_NAME }
        : undefined,
  };
}

/**
 * Whether an address may have an account here: TOOLSMITH_ALLOWED_EMAIL_DOMAINS, when set, names its domain. Here,
 * below lib/accounts/, since who may open a members-only share link (lib/http/access.ts) asks it too.
 */
export function mayHaveAccount(email: string): boolean {
  const { allowedDomains } = authConfig();
  const domain = email.toLowerCase().split("@").at(-1)!;
  return allowedDomains.length === 0 || allowedDomains.includes(domain);
}

/** Under `next dev`: React's dev tooling needs eval, which the Content-Security-Policy then allows. */
export const isDevelopment = (): boolean => environment().NODE_ENV === "development";

/** send_email's SMTP server (e.g. smtp://user:pass@mail.example.com:587) and sender; no url, no email. */
export function smtpConfig(): { url?: string; from: string } {
  const { SMTP_URL: url, SMTP_FROM: from } = environment();
  return { url, from };
}

/** web_search's provider: a SearXNG instance, else Brave's API with its key; neither, no search. */
export function webSearchConfig(): { searxngUrl?: string; braveApiKey?: string } {
  const { TOOLSMITH_SEARXNG_URL: searxngUrl, TOOLSMITH_BRAVE_API_KEY: braveApiKey } = environment();
  return { searxngUrl, braveApiKey };
}

/**
 * The OpenTelemetry export: on when an OTLP endpoint is set (the SDK's exporters read the standard OTEL_ variables
 * themselves), in the protocol it names, and whether a span may carry the person's message.
 */
export function telemetryConfig() {
  const settings = environment();
  return {
    enabled: Boolean(settings.OTEL_EXPORTER_OTLP_ENDPOINT || settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    protocol: settings.OTEL_EXPORTER_OTLP_PROTOCOL,
    serviceName: settings.OTEL_SERVICE_NAME,
    captureContent: settings.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
  };
}

export type DatabaseConfig = { provider: "sqlite"; file: string } | { provider: "postgresql"; url: string };

/**
 * The database DATABASE_URL names: `file:` for SQLite (the default; the path resolved from the working directory,
 * as the Prisma CLI does), `postgresql://` (or `postgres://`) for PostgreSQL.
 */
export function databaseConfig(): DatabaseConfig {
  const url = environment().DATABASE_URL;
  return url.startsWith("file:")
    ? { provider: "sqlite", file: path.resolve(url.slice("file:".length)) }
    : { provider: "postgresql", url };
}

/** Where the app keeps its files: TOOLSMITH_DATA_DIR, else the SQLite database's directory, else ./data. */
export function dataDirectory(): string {
  const database = databaseConfig();
  return path.resolve(
    environment().TOOLSMITH_DATA_DIR ?? (database.provider === "sqlite" ? path.dirname(database.file) : "data"),
  );
}

/** The file tools' workspaces, one directory per conversation. */
export function workspacesDirectory(): string {
  // Chosen when the server runs: nothing for Next's build to trace (see profiles.ts).
  return path.resolve(
    /* turbopackIgnore: true */ environment().TOOLSMITH_WORKSPACES_DIR ?? path.join(dataDirectory(), "workspaces"),
  );
}
