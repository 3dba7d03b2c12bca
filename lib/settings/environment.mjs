// Every environment variable the app reads, in one zod schema: its type and range, its default, and what it means.
// .env.example and the configuration table of docs/configuration.md are generated from it (scripts/settings-docs.mjs).
// Plain JavaScript, for server.mjs and the scripts, which run under plain Node; TypeScript infers the types.
import os from "node:os";
import { z } from "zod";

/**
 * @param {number} min
 * @param {number} [max]
 */
const integer = (min, max = Infinity) =>
  z.coerce
    .number({ error: max === Infinity ? `an integer, ${min} or more` : `an integer from ${min} to ${max}` })
    .int()
    .min(min)
    .max(max);

/**
 * @template {string} const T
 * @param {readonly [T, ...T[]]} values
 */
const oneOf = (values) => z.enum(values, { error: `${values.slice(0, -1).join(", ")} or ${values.at(-1)}` });

const httpUrl = (example = "") =>
  z.url({ protocol: /^https?$/, error: `an http(s) URL${example && ` such as ${example}`}` });

/** A model's price, in US dollars per million tokens. */
const modelPrice = z.strictObject({ input: z.number().min(0), output: z.number().min(0) });
const PRICE_TABLE =
  '{"<model id>": {"input": <USD per million input tokens>, "output": <USD per million output tokens>}}';

/** The price table: JSON, a model id to its price; a bad entry is named in the error. */
const modelPrices = z
  .string()
  .optional()
  .transform((text, context) => {
    if (text === undefined) return {};
    /** @type {unknown} */
    let table;
    try {
      table = JSON.parse(text);
    } catch {
      context.addIssue({ code: "custom", message: `JSON ${PRICE_TABLE}` });
      return z.NEVER;
    }
    if (typeof table !== "object" || table === null || Array.isArray(table)) {
      context.addIssue({ code: "custom", message: `a JSON object ${PRICE_TABLE}` });
      return z.NEVER;
    }
    /** @type {Record<string, z.output<typeof modelPrice>>} */
    const prices = {};
    for (const [model, price] of Object.entries(table)) {
      const parsed = modelPrice.safeParse(price);
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const problem =
          issue.code === "unrecognized_keys"
            ? `it has ${issue.keys.map((key) => `"${key}"`).join(", ")}, neither "input" nor "output"`
            : issue.path.length === 0
              ? 'it must be {"input": …, "output": …}'
              : `its "${String(issue.path[0])}" must be a number of dollars, 0 or more`;
        context.addIssue({ code: "custom", message: `JSON ${PRICE_TABLE}; the entry "${model}" is not: ${problem}` });
        return z.NEVER;
      }
      prices[model] = parsed.data;
    }
    return prices;
  });

const model = {
  OPENAI_API_KEY: z.string().optional().describe("key for OpenAI or a compatible server"),
  OPENAI_BASE_URL: httpUrl("http://localhost:11434/v1").optional().meta({
    description: "any OpenAI-compatible server, e.g. `http://localhost:11434/v1` (Ollama)",
    defaultText: "OpenAI",
  }),
  ANTHROPIC_API_KEY: z.string().optional().describe("key for Anthropic's Messages API (Claude)"),
  ANTHROPIC_BASE_URL: httpUrl("https://api.anthropic.com/v1").optional().meta({
    description: "a proxy or a server that speaks Anthropic's Messages API",
    defaultText: "Anthropic",
  }),
  TOOLSMITH_MODEL: z.string().prefault("gpt-4.1-mini").describe("model id, e.g. `gpt-4.1-mini` or `claude-sonnet-4-5`"),
  // Unset, lib/settings/config.ts chooses by the model id and the server.
  TOOLSMITH_MODEL_API: oneOf(["chat", "compatible", "responses", "anthropic"]).optional().meta({
    description:
      "`chat`: Chat Completions via `@ai-sdk/openai`, strict about OpenAI's stream shape; `compatible`: via `@ai-sdk/openai-compatible`, which also reads what local servers send (`reasoning_content` and `reasoning`, tool calls without `index`, in-stream errors); `responses`: OpenAI's Responses API; `anthropic`: Anthropic's Messages API via `@ai-sdk/anthropic`, with extended thinking. In all of them `<think>…</think>` in the text goes to the reasoning panel",
    defaultText:
      "`anthropic` for a `claude-` model with `ANTHROPIC_API_KEY` (or that key alone), else `chat` for OpenAI, `compatible` for any other `OPENAI_BASE_URL`",
  }),
  TOOLSMITH_THINKING_TOKENS: integer(0, 128_000)
    .refine((tokens) => tokens === 0 || tokens >= 1024, { error: "0 (off), or 1024 tokens or more" })
    .prefault("4096")
    .describe(
      "Claude's extended-thinking budget per step, in tokens (0: no thinking; Anthropic's minimum is 1024); models that only think adaptively ignore the number",
    ),
  TOOLSMITH_MODEL_RETRIES: integer(0, 10)
    .prefault("2")
    .describe("retries of a failed model request (429, 5xx, network), with backoff"),
  TOOLSMITH_MODEL_TIMEOUT_MS: integer(1_000, 600_000)
    .prefault("60000")
    .describe(
      "a model connection that receives no byte this long fails the run (SSE comments and keep-alives count, so long reasoning is not cut off)",
    ),
  TOOLSMITH_MODEL_PRICES: modelPrices.meta({
    description:
      'prices per million tokens, for the cost of each run in its timeline: JSON `{"<model id>": {"input": 0.4, "output": 1.6}}` (US dollars); a model without one shows tokens only',
    defaultText: "none",
  }),
};

const agent = {
  TOOLSMITH_MAX_STEPS: integer(1, 100).prefault("8").describe("step ceiling of one run"),
  TOOLSMITH_GENERATE_ATTEMPTS: integer(1, 10)
    .prefault("3")
    .describe("attempts at writing a tool from a description (POST /api/tools/generate): the first, then repairs"),
  TOOLSMITH_RETRIEVED_TOOLS: integer(0, 64)
    .prefault("8")
    .describe(
      "library tools offered to the model in a run: the best matches for the person's message, then the most recently used (search_tools finds others)",
    ),
  TOOLSMITH_EMBEDDING_MODEL: z
    .string()
    .optional()
    .describe(
      "embedding model on the same server as the chat model (e.g. `text-embedding-3-small`): tool retrieval ranks by meaning as well as by words",
    ),
  TOOLSMITH_MAX_MESSAGE_CHARS: integer(1, 1_000_000)
    .prefault("32000")
    .describe("longest user message (413 above it); request bodies are capped at 256 KB"),
  TOOLSMITH_TOOL_OUTPUT_CHARS: integer(256, 1_000_000)
    .prefault("16384")
    .describe("tool output the model and the trace see; longer output is cut with a visible marker"),
};

const sandbox = {
  TOOLSMITH_TOOL_TIMEOUT_MS: integer(50, 120_000).prefault("5000").describe("wall-clock limit of one tool call"),
  TOOLSMITH_TOOL_MEMORY_MB: integer(8, 1024).prefault("64").describe("memory limit of one tool call"),
  TOOLSMITH_SANDBOX_WORKERS: integer(1, 64)
    .prefault(() => String(Math.max(2, Math.min(os.availableParallelism(), 8))))
    .meta({ description: "sandbox threads", defaultText: "cores, 2–8" }),
  TOOLSMITH_PYTHON_WORKERS: integer(1, 16)
    .prefault("2")
    .describe(
      "Python sandbox slots: calls at once (each slot a zygote with the libraries loaded, about 120 MB resident, and a child per call)",
    ),
  TOOLSMITH_PYTHON_WARM: oneOf(["0", "1"])
    .transform((flag) => flag === "1")
    .prefault("1")
    .describe(
      "start the Python zygotes with the server (1), so that the first Python call does not wait for them, or at the first Python call (0)",
    ),
  TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY: oneOf(["0", "1"])
    .transform((flag) => flag === "1")
    .prefault("0")
    .describe("tests only: run Python tool code without the policy check, to show that the jail holds on its own"),
  TOOLSMITH_FETCH_TIMEOUT_MS: integer(100, 60_000).prefault("4000").describe("timeout of a tool's `fetch`"),
  TOOLSMITH_FETCH_MAX_BYTES: integer(1024, 50 * 1024 * 1024)
    .prefault("1048576")
    .describe("largest response body a tool's `fetch` reads"),
};

/** SQLAlchemy's driver suffix (`postgresql+asyncpg://`, `postgres+psycopg://`), which SEAT's DATABASE_URL carries. */
const DRIVER_SUFFIX = /^postgres(?:ql)?\+[a-z0-9_]+:\/\//i;

/**
 * A PostgreSQL URL as pg reads it: a SQLAlchemy driver suffix dropped, and asyncpg's `ssl=<mode>` given as libpq's
 * `sslmode=<mode>` (pg would take the mode's name for TLS options). Any other URL is returned as it is.
 * @param {string} url
 */
export function plainDatabaseUrl(url) {
  const suffixed = DRIVER_SUFFIX.exec(url);
  if (!suffixed) return url;
  return `postgresql://${url.slice(suffixed[0].length)}`.replace(
    /([?&])ssl=(disable|allow|prefer|require|verify-ca|verify-full)(?=&|#|$)/,
    "$1sslmode=$2",
  );
}

const storage = {
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?(\+[a-z0-9_]+)?:\/\/)/i, { error: "a file: URL (SQLite) or a postgresql:// URL" })
    .transform(plainDatabaseUrl)
    .prefault("file:./data/toolsmith.db")
    .describe(
      "SQLite file (created on start), or `postgresql://user:password@host:5432/db` for several instances on one database (SQLAlchemy's `postgresql+asyncpg://…`, SEAT's, is read as `postgresql://…`)",
    ),
  TOOLSMITH_LEASE_MS: integer(500, 600_000)
    .prefault("10000")
    .describe("how long a run's lease lasts without a heartbeat; past it, another instance takes the run over"),
  TOOLSMITH_DB_QUERY_TIMEOUT_MS: integer(100, 3_600_000)
    .prefault("30000")
    .describe(
      "a PostgreSQL statement that runs this long is cancelled, a transaction idle this long is ended, and a connection silent a second longer is replaced (the live path's statements: a quarter of the lease)",
    ),
  TOOLSMITH_DB_POOL: integer(1, 1000)
    .prefault("20")
    .describe(
      "PostgreSQL connections per instance for requests; each instance also opens up to 4 for the live path (event writes, followers' reads, lease renewals, notifications), so that a burst of requests never holds them up, and 1 that listens",
    ),
  TOOLSMITH_DATA_DIR: z.string().optional().meta({
    description: "where the identity secret (when generated) and the workspaces live",
    defaultText: "the SQLite file's folder, else `./data`",
  }),
  TOOLSMITH_WORKSPACES_DIR: z.string().optional().meta({
    description: "the file tools' and run_command's per-conversation folders",
    defaultText: "`<data dir>/workspaces`",
  }),
  TOOLSMITH_SECRET: z.string().optional().meta({
    description:
      "key that signs identity cookies and, through keys derived from it, seals the headers of the MCP servers people connect (changing it makes those unreadable); without it, one is generated once and kept in the data directory (`identity-secret`); required with PostgreSQL, the same on every instance",
    defaultText: "generated",
  }),
};

const files = {
  TOOLSMITH_FILE_MAX_MB: integer(1, 2048)
    .prefault("25")
    .describe("largest file a person uploads or a tool writes into a conversation; 413 above it"),
  TOOLSMITH_CONVERSATION_FILES_MAX_MB: integer(1, 1_000_000)
    .prefault("250")
    .describe("all the files of one conversation together; an upload or a tool's file past it is refused (413)"),
  TOOLSMITH_IDENTITY_FILES_MAX_MB: integer(1, 10_000_000)
    .prefault("1000")
    .describe("all the files of one identity, over its conversations; likewise"),
  TOOLSMITH_MESSAGE_MAX_FILES: integer(1, 100).prefault("10").describe("files one message may attach"),
  TOOLSMITH_RATE_UPLOADS_PER_MINUTE: integer(1, 100_000)
    .prefault("60")
    .describe("files uploaded per identity per minute, three times that per client address; 429 past it"),
  TOOLSMITH_FILES_S3_URL: httpUrl("http://127.0.0.1:9000/toolsmith-files")
    .optional()
    .describe(
      "an S3-compatible bucket for the files' bytes, as the endpoint and the bucket (path-style); unset: the bytes are kept in the database, in chunks",
    ),
  TOOLSMITH_FILES_S3_ACCESS_KEY_ID: z.string().optional().describe("the access key id for `TOOLSMITH_FILES_S3_URL`"),
  TOOLSMITH_FILES_S3_SECRET_ACCESS_KEY: z
    .string()
    .optional()
    .describe("the secret access key for `TOOLSMITH_FILES_S3_URL`"),
  TOOLSMITH_FILES_S3_REGION: z.string().prefault("us-east-1").describe("the bucket's region"),
};

const server = {
  PORT: integer(0, 65_535).prefault("3000").describe("HTTP port of `npm start`"),
  TOOLSMITH_LISTEN_HOST: z
    .string()
    .optional()
    .meta({ description: "address `npm start` listens on, e.g. `127.0.0.1`", defaultText: "all interfaces" }),
  TOOLSMITH_HEAP_MB: integer(0)
    .prefault("384")
    .describe(
      "the server's cap on V8's old generation (`--max-old-space-size`; Node 22.15+, or set it in `NODE_OPTIONS`); `0` for V8's own limit. About 150 KB is live per run in flight; without a cap, garbage piles up to 600–700 MB resident under 400 concurrent runs before a major collection",
    ),
  // Next sets it (development under `next dev`); `npm start` runs the production build.
  NODE_ENV: oneOf(["development", "production", "test"])
    .prefault("production")
    .describe("set by Next; `development` (`next dev`) lets the CSP allow `'unsafe-eval'` for React's dev tooling"),
  TOOLSMITH_PUBLIC_URL: httpUrl()
    .transform((url) => new URL(url).origin)
    .optional()
    .describe(
      "the origin people use, e.g. `https://chat.example.com`: share links, the same-origin check, and over https the `__Host-` cookie and HSTS",
    ),
  TOOLSMITH_TRUST_PROXY: oneOf(["0", "1"])
    .transform((flag) => flag === "1")
    .prefault("0")
    .describe(
      "`1` behind a reverse proxy that sets `X-Forwarded-Host`/`-Proto`/`-For`; otherwise those headers are ignored, since anyone can send them",
    ),
  TOOLSMITH_IMAGE_HOSTS: z
    .string()
    .transform((list) =>
      list
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean)
        .map((entry) => (entry.includes("://") ? entry : `https://${entry}`)),
    )
    .pipe(
      z.array(
        z
          .url({ protocol: /^https?$/, error: "comma-separated hosts (https) or http(s) origins" })
          .transform((url) => new URL(url).origin),
      ),
    )
    .prefault("")
    .describe(
      "comma-separated hosts whose images answers may show inline (e.g. `images.example.com,http://127.0.0.1:9000`); any other remote image stays a link until the reader loads it",
    ),
  TOOLSMITH_RATE_CONVERSATIONS_PER_MINUTE: integer(1, 100_000)
    .prefault("20")
    .describe(
      "new conversations (and forks) per identity per minute; each client address gets three times as much; above it, 429 with `Retry-After`",
    ),
  TOOLSMITH_RATE_MESSAGES_PER_MINUTE: integer(1, 100_000)
    .prefault("30")
    .describe("messages per identity per minute, likewise"),
  TOOLSMITH_RATE_REVIEWS_PER_MINUTE: integer(1, 100_000)
    .prefault("30")
    .describe("annotations, their deletions and verdicts per identity per minute, likewise"),
  TOOLSMITH_ANNOTATION_LABELS: z
    .string()
    .prefault("wrong tool,bad input,hallucinated,good")
    .transform((list) => [
      ...new Set(
        list
          .split(",")
          .map((label) => label.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z
        .array(z.string().max(40, "a label is at most 40 characters"))
        .min(1, "give at least one label")
        .max(20, "at most 20 labels"),
    )
    .describe("the labels a reviewer can give an annotation, comma-separated"),
  TOOLSMITH_MAX_OPEN_STREAMS: integer(1, 100_000)
    .prefault("32")
    .describe(
      "event streams (`/events`, share links) open at once per identity on an instance, three times that per client address; 429 past it",
    ),
  TOOLSMITH_MAX_REQUESTS: integer(1, 1_000_000)
    .prefault("1000")
    .describe(
      "requests one instance serves at once, event streams included (a client following a run holds one); past it, 503 with `Retry-After: 1`, never a reset connection. At about 150 KB live per run in flight, the default `TOOLSMITH_HEAP_MB` holds that many with room to spare",
    ),
  TOOLSMITH_PRELOAD_ROUTES: oneOf(["0", "1"])
    .transform((flag) => flag === "1")
    .prefault("1")
    .describe(
      "load every page and route as the server starts (1), about 1 s more of CPU at start, so that no first request waits for its code, or each at its first request (0), for a server started often and asked little (the test suites)",
    ),
  TOOLSMITH_CLIENT_STALL_MS: integer(100, 600_000)
    .prefault("10000")
    .describe(
      "a client that takes nothing of a response for this long is disconnected, and one more than 1 MiB of events behind for this long has its stream cut (it resumes from its last event), instead of the server keeping a run's output for it",
    ),
};

const tools = {
  TOOLSMITH_CONFIG: z
    .string()
    .prefault("toolsmith.config.yaml")
    .describe("the agent profiles file (see `toolsmith.config.example.yaml`); absent: one default profile"),
  TOOLSMITH_SEARXNG_URL: httpUrl()
    .optional()
    .describe("web_search's provider: a SearXNG instance with the JSON format on (chosen first)"),
  TOOLSMITH_BRAVE_API_KEY: z.string().optional().describe("web_search's provider otherwise: a Brave Search API key"),
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: "an smtp:// or smtps:// URL" })
    .optional()
    .describe("send_email's relay, e.g. `smtp://user:password@mail.example.com:587`"),
  SMTP_FROM: z.string().prefault("Toolsmith <toolsmith@localhost>").describe("send_email's sender"),
};

const librarian = {
  TOOLSMITH_LIBRARIAN_DOCUMENT_KB: integer(1, 64 * 1024)
    .prefault("1024")
    .describe("largest XML document the librarian stores"),
  TOOLSMITH_LIBRARIAN_MAX_DOCUMENTS: integer(1, 10_000_000).prefault("10000").describe("documents one person may keep"),
  TOOLSMITH_LIBRARIAN_QUERY_DOCUMENTS: integer(1, 1_000_000)
    .prefault("2000")
    .describe("documents one `librarian_query` reads; a larger collection must be narrowed"),
  TOOLSMITH_LIBRARIAN_TIMEOUT_MS: integer(50, 120_000)
    .prefault("3000")
    .describe("wall clock of one XML check or query; past it, its thread is terminated"),
};

// The OpenTelemetry SDK reads the standard variables itself (endpoint, headers, timeout, TLS); they are here to be
// checked at start-up and documented, and for what the app decides with them (lib/telemetry/export.ts).
const telemetry = {
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl("http://localhost:4318")
    .optional()
    .describe(
      "an OTLP/HTTP receiver (a collector, Langfuse, Phoenix), e.g. `http://localhost:4318`; `/v1/traces` is added. Set, every finished run is exported as a trace (see docs/observability.md)",
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl("http://localhost:4318/v1/traces")
    .optional()
    .describe("the full URL traces go to, instead of the above (nothing is added to it)"),
  OTEL_EXPORTER_OTLP_PROTOCOL: oneOf(["http/protobuf", "http/json"])
    .prefault("http/protobuf")
    .describe("how the traces are encoded; `grpc` is not supported"),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .optional()
    .describe(
      "headers of every export, `key=value` pairs separated by commas, values percent-encoded: e.g. `Authorization=Basic%20…`",
    ),
  OTEL_SERVICE_NAME: z.string().prefault("toolsmith").describe("the traces' `service.name`"),
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: oneOf(["true", "false"])
    .transform((flag) => flag === "true")
    .prefault("false")
    .describe(
      "`true` puts what was said and done into the traces: the messages of each model call and each tool call's arguments and result; otherwise they carry names, times, token counts and errors only",
    ),
};

/** Ollama's OpenAI-compatible endpoint, where SEAT's default provider is. */
const OLLAMA_URL = "http://localhost:11434/v1";

/**
 * The names SEAT (alexmar07/seat) reads, taken as Toolsmith's own so that a SEAT .env works unchanged. Each stands
 * for a Toolsmith variable (`fromSeatNames` below); set beside it with another value, start-up stops.
 */
const seat = {
  LLM_PROVIDER: oneOf(["openai", "ollama", "anthropic"])
    .optional()
    .meta({
      description: `SEAT's name for the model's provider: \`ollama\` is the \`compatible\` dialect at \`${OLLAMA_URL}\` (unless \`OPENAI_BASE_URL\` says otherwise) with model \`llama3\` unless one is named; \`openai\` and \`anthropic\` take \`LLM_API_KEY\` as their key`,
      defaultText:
        "`ollama` (SEAT's default) when `LLM_MODEL` is set and no other model server or key is; otherwise unset",
    }),
  LLM_MODEL: z.string().optional().describe("SEAT's name for `TOOLSMITH_MODEL`"),
  LLM_API_KEY: z
    .string()
    .optional()
    .describe(
      "SEAT's name for the model's key: `OPENAI_API_KEY`, or `ANTHROPIC_API_KEY` with `LLM_PROVIDER=anthropic`",
    ),
  EXECUTOR_TIMEOUT: z.coerce
    .number({ error: "a number of seconds from 0.05 to 120" })
    .min(0.05)
    .max(120)
    .optional()
    .describe("SEAT's name for `TOOLSMITH_TOOL_TIMEOUT_MS`, in seconds (SEAT's default is 30)"),
};

/** Comma-separated, trimmed, lower case, empty entries dropped. */
const lowerCaseList = z
  .string()
  .prefault("")
  .transform((list) => [
    ...new Set(
      list
        .split(",")
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
    ),
  ]);

const accounts = {
  TOOLSMITH_AUTH: oneOf(["anonymous", "optional", "required"])
    .prefault("anonymous")
    .describe(
      "`anonymous`: no accounts, every browser its own anonymous identity; `optional`: that, and people may sign in (what they did anonymously becomes their account's); `required`: pages send strangers to sign in, and the API answers 401 without a session or token",
    ),
  TOOLSMITH_ALLOWED_EMAIL_DOMAINS: lowerCaseList
    .pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, "comma-separated domains such as example.com")))
    .describe(
      "comma-separated email domains whose addresses may have an account (and open members-only share links); empty: any",
    ),
  TOOLSMITH_ADMIN_EMAILS: lowerCaseList
    .pipe(z.array(z.email("comma-separated email addresses")))
    .describe(
      "comma-separated addresses of admins: they see the whole audit log and choose which agent profiles each account may use",
    ),
  TOOLSMITH_OIDC_ISSUER: httpUrl("https://login.example.com")
    .optional()
    .describe(
      "single sign-on: the OpenID Connect provider's issuer URL (its `/.well-known/openid-configuration` is read); register `<public URL>/api/auth/callback/oidc` as the redirect URI",
    ),
  TOOLSMITH_OIDC_CLIENT_ID: z.string().optional().describe("single sign-on: the client id the provider gave Toolsmith"),
  TOOLSMITH_OIDC_CLIENT_SECRET: z.string().optional().describe("single sign-on: its client secret"),
  TOOLSMITH_OIDC_NAME: z
    .string()
    .prefault("single sign-on")
    .describe('single sign-on: the provider\'s name on the sign-in button ("Sign in with …")'),
};

// People's MCP servers the agent connects to (lib/mcp-client/): where a person's server may be, and how long and how
// much the client waits for and reads from one.
const mcpServers = {
  TOOLSMITH_MCP_PRIVATE_HOSTS: lowerCaseList.describe(
    "comma-separated hosts, addresses or CIDR ranges (e.g. `mcp.corp.example,10.1.0.0/16`) where a person's own MCP server, or an admin's for everyone, may be although they are not public (intranet servers); empty: such a server must resolve to public addresses only (the profiles file's servers are the operator's and may be anywhere)",
  ),
  TOOLSMITH_MCP_CONNECT_TIMEOUT_MS: integer(100, 120_000)
    .prefault("10000")
    .describe("time to start or reach an MCP server and finish its handshake, and to list its tools"),
  TOOLSMITH_MCP_MAX_RESULT_BYTES: integer(1024, 64 * 1024 * 1024)
    .prefault("4194304")
    .describe(
      "largest message an MCP server may send (a tool's result, a page of tools): a larger one is cut off on the wire and the call fails with a clear error",
    ),
};

/** The variables by topic, in the order the docs list them. */
export const sections = {
  "The model": model,
  "The agent": agent,
  "The sandbox that runs tool code": sandbox,
  Storage: storage,
  "Files people attach and tools write": files,
  "The web server": server,
  Accounts: accounts,
  "Tools and profiles": tools,
  "The librarian": librarian,
  "MCP servers": mcpServers,
  OpenTelemetry: telemetry,
  "SEAT's names": seat,
};

const schema = z.object({
  ...model,
  ...agent,
  ...sandbox,
  ...storage,
  ...files,
  ...server,
  ...accounts,
  ...tools,
  ...librarian,
  ...mcpServers,
  ...telemetry,
  ...seat,
});

/** @typedef {z.output<typeof schema>} Settings */

/** A variable with a value it cannot have: start-up stops with this. */
export class SettingsError extends Error {}

/** Passwords in URLs stay out of messages; keys and secrets take any value, so no message shows one. */
const masked = (/** @type {string} */ value) => value.replace(/\/\/[^/]*@/, "//…@");

/**
 * The dialect for an OpenAI-style server when none is chosen: OpenAI's own gets the strict OpenAI client, any other
 * the compatible one.
 * @param {string | undefined} baseURL
 * @returns {"chat" | "compatible"}
 */
export const openaiDialect = (baseURL) =>
  baseURL === undefined || new URL(baseURL).hostname === "api.openai.com" ? "chat" : "compatible";

/** Toolsmith's variables that say which model server to talk to: any of them set, SEAT's default provider is not. */
const MODEL_SERVER = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "TOOLSMITH_MODEL_API",
];

/**
 * @typedef {object} Implied A Toolsmith variable's value that SEAT's names imply.
 * @property {string} name the Toolsmith variable
 * @property {string} value its value
 * @property {string} from the SEAT variable, named in a conflict
 * @property {"same" | "number" | "default" | "secret" | "family"} rule how a value given beside it must relate:
 *   `same` (equal), `number` (the same number: 30000 and 30000.0), `secret` (equal, and the message shows neither),
 *   `default` (anything: the value yields), `family` (the model API of the same provider: anthropic or not)
 */

/**
 * What SEAT's names set, in Toolsmith's, and the problems with them. SEAT's default provider, ollama, applies only
 * when LLM_MODEL is its only model setting: beside a Toolsmith server or key, LLM_MODEL names a model of that server.
 * @param {Record<string, string | undefined>} given
 * @returns {{ implied: Implied[], problems: string[] }}
 */
function fromSeatNames(given) {
  // A bad value of a SEAT variable is named by the full parse, like any other; here it is unset.
  const LLM_PROVIDER = seat.LLM_PROVIDER.safeParse(given.LLM_PROVIDER).data;
  const LLM_MODEL = given.LLM_MODEL;
  const LLM_API_KEY = given.LLM_API_KEY;
  const EXECUTOR_TIMEOUT = seat.EXECUTOR_TIMEOUT.safeParse(given.EXECUTOR_TIMEOUT).data;
  const onlySeat = LLM_API_KEY === undefined && MODEL_SERVER.every((name) => given[name] === undefined);
  const provider = LLM_PROVIDER ?? (LLM_MODEL !== undefined && onlySeat ? "ollama" : undefined);
  const from = LLM_PROVIDER ? "LLM_PROVIDER" : "LLM_MODEL";
  /** @type {Implied[]} */
  const implied = [];
  /** @type {string[]} */
  const problems = [];
  if (LLM_MODEL !== undefined)
    implied.push({ name: "TOOLSMITH_MODEL", value: LLM_MODEL, from: "LLM_MODEL", rule: "same" });
  if (EXECUTOR_TIMEOUT !== undefined)
    implied.push({
      name: "TOOLSMITH_TOOL_TIMEOUT_MS",
      value: String(Math.round(EXECUTOR_TIMEOUT * 1000)),
      from: "EXECUTOR_TIMEOUT",
      rule: "number",
    });
  if (provider === "anthropic") implied.push({ name: "TOOLSMITH_MODEL_API", value: "anthropic", from, rule: "family" });
  if (provider === "ollama") {
    // SEAT's defaults: Toolsmith's default model is OpenAI's, which no Ollama has.
    implied.push({ name: "OPENAI_BASE_URL", value: OLLAMA_URL, from, rule: "default" });
    implied.push({ name: "TOOLSMITH_MODEL", value: "llama3", from, rule: "default" });
  }
  if (provider === "openai" || provider === "ollama") {
    const server = given.OPENAI_BASE_URL ?? (provider === "ollama" ? OLLAMA_URL : undefined);
    // Chosen here, so that an Anthropic key also in the environment does not take the runs (config.ts' choice).
    // A URL that cannot be read is named by the full parse.
    const dialect = server === undefined || URL.canParse(server) ? openaiDialect(server) : "chat";
    implied.push({ name: "TOOLSMITH_MODEL_API", value: dialect, from, rule: "family" });
  }
  if (LLM_API_KEY !== undefined) {
    if (provider === undefined)
      problems.push(
        "LLM_API_KEY is set without LLM_PROVIDER, so whose key it is is unknown: set LLM_PROVIDER (openai or anthropic), or give the key as OPENAI_API_KEY or ANTHROPIC_API_KEY.",
      );
    else
      implied.push({
        name: provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
        value: LLM_API_KEY,
        from: "LLM_API_KEY",
        rule: "secret",
      });
  }
  for (const { name, value, from: seatName, rule } of implied) {
    const own = given[name];
    if (own === undefined || rule === "default") continue;
    const agree =
      rule === "family"
        ? (own === "anthropic") === (value === "anthropic")
        : rule === "number"
          ? Number(own) === Number(value)
          : own === value;
    if (agree) continue;
    const both = `${seatName} (SEAT's name) and ${name} (Toolsmith's)`;
    problems.push(
      rule === "secret"
        ? `${both} are both set, to different keys; keep one of them.`
        : rule === "family"
          ? `${both} disagree: ${seatName}=${given[seatName]} cannot use ${name}=${own}; keep one of them.`
          : `${both} disagree: ${seatName}=${given[seatName]} against ${name}=${masked(own)}; keep one of them, or make them alike.`,
    );
  }
  return { implied, problems };
}

/**
 * @param {Record<string, string | undefined>} env
 * @returns {Settings}
 */
function parse(env) {
  // Trimmed, and empty means unset: a blank line in .env leaves a variable empty.
  /** @type {Record<string, string | undefined>} */
  const given = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, env[name]?.trim() || undefined]));
  const seatNames = fromSeatNames(given);
  for (const { name, value } of seatNames.implied) given[name] ??= value;
  const parsed = schema.safeParse(given);
  const crossed = [...seatNames.problems, ...singleSignOnProblems(given)];
  if (parsed.success && crossed.length === 0) return parsed.data;
  /** @type {Map<string, string>} */
  const problems = new Map(crossed.map((problem, index) => [`crossed ${index}`, problem]));
  for (const issue of parsed.error?.issues ?? []) {
    const name = String(issue.path[0]);
    if (!problems.has(name))
      problems.set(name, `${name} must be ${issue.message}; got "${masked(given[name] ?? "")}".`);
  }
  throw new SettingsError([...problems.values()].join("\n"));
}

/**
 * Single sign-on needs its issuer and client id together, and accounts on: half a configuration would show a
 * button that cannot work, or none where the operator expects one.
 * @param {Record<string, string | undefined>} given
 */
function singleSignOnProblems(given) {
  const { TOOLSMITH_OIDC_ISSUER: issuer, TOOLSMITH_OIDC_CLIENT_ID: clientId } = given;
  if (!issuer && !clientId) return [];
  if (!issuer || !clientId)
    return ["Single sign-on needs both TOOLSMITH_OIDC_ISSUER and TOOLSMITH_OIDC_CLIENT_ID; set the other, or neither."];
  return (given.TOOLSMITH_AUTH ?? "anonymous") === "anonymous"
    ? ["TOOLSMITH_OIDC_ISSUER is set but accounts are off: set TOOLSMITH_AUTH to optional or required."]
    : [];
}

/** @type {WeakMap<object, Settings>} */
const parsedEnvironments = new WeakMap();

/**
 * The settings of an environment, process.env unless told: parsed once per environment object, so a process reads
 * its settings once; a test that needs others gives a new object. Throws a SettingsError naming each bad variable.
 * @param {Record<string, string | undefined>} [env]
 * @returns {Settings}
 */
export function environment(env = process.env) {
  let settings = parsedEnvironments.get(env);
  if (!settings) parsedEnvironments.set(env, (settings = parse(env)));
  return settings;
}
