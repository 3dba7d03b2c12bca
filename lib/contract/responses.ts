import { z } from "zod";
import { ToolLanguage } from "@/lib/sandbox/languages";
import {
  DependentCheck,
  ExampleOutcome,
  IdentifiedEvent,
  RegisteredToolView,
  RunStatus,
  ToolExample,
  ToolImage,
  Violation,
} from "./events";

/*
 * What the API answers, route by route (routes.ts says which answers which). The browser client's types are
 * inferred from these, and the integration tests check every answer they get against them.
 */

const time = z.iso.datetime();
const nextCursor = z.string().nullable().describe("Pass as `cursor` for the next page; null on the last one.");

export const ErrorBody = z
  .strictObject({
    error: z.strictObject({ code: z.string(), message: z.string().describe("What went wrong, for a person.") }),
  })
  .meta({ id: "Error" });

/** A tool that was not accepted: what the policy refused, or how its examples went. */
export const ToolRefused = ErrorBody.extend({
  violations: z.array(Violation).optional(),
  failures: z.array(ExampleOutcome).optional().describe("Every example, when one or more failed."),
});
export type ToolRefused = z.infer<typeof ToolRefused>;

/** POST /api/mcp: a JSON-RPC 2.0 message of the Model Context Protocol, whose specification gives its schemas. */
export const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal("2.0") }).meta({ id: "JsonRpcMessage" });

const terminated = z.record(z.enum(["timeout", "cancelled", "memory", "crash"]), z.number().int());
export const Health = z.strictObject({
  status: z.literal("ok"),
  sandbox: z.strictObject({
    threads: z.number().int(),
    busy: z.number().int(),
    queued: z.number().int(),
    terminated,
  }),
  python: z
    .strictObject({
      available: z.boolean(),
      why: z.string().optional().describe("Why Python tools are off, when they are."),
      processes: z.number().int(),
      ready: z.number().int(),
      busy: z.number().int(),
      queued: z.number().int(),
      terminated,
      residentBytes: z
        .array(z.number().int())
        .describe("Resident memory of each slot: its zygote and children, shared pages counted once."),
    })
    .describe("The Python sandbox: a zygote per process slot, and a child forked from it for each call."),
});

export const Conversation = z
  .strictObject({ id: z.string(), title: z.string(), profile: z.string().nullable(), createdAt: time, updatedAt: time })
  .meta({ id: "Conversation" });
export type Conversation = z.infer<typeof Conversation>;

export const ConversationPage = z.strictObject({ conversations: z.array(Conversation), nextCursor });
export type ConversationPage = z.infer<typeof ConversationPage>;

const Message = z.strictObject({
  id: z.string(),
  runId: z.string(),
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  createdAt: time,
});

export const RunSummary = z.strictObject({
  id: z.string(),
  status: z.union([RunStatus, z.literal("running")]),
  model: z.string(),
  steps: z.number().int(),
  createdAt: time,
  finishedAt: time.nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const ConversationFile = z
  .strictObject({
    id: z.string(),
    name: z.string().describe("Plain: no folders, no control or bidirectional characters; unique in the conversation."),
    path: z
      .string()
      .describe("Where tools find it: /sales.csv (Python: /mnt/data/sales.csv; run_command: /work/sales.csv)."),
    size: z.number().int().describe("Bytes."),
    mimeType: z.string().describe("Sniffed from the bytes, not taken from the client."),
    createdAt: time,
    updatedAt: time,
    source: z.enum(["upload", "tool"]),
    url: z.string().describe("Its bytes: GET this (the owner's, or the share link's for a shared conversation)."),
    messageId: z.string().nullable().describe("The user message that attached it."),
    writtenBy: z
      .strictObject({ runId: z.string().nullable(), callId: z.string().nullable(), tool: z.string() })
      .optional()
      .describe("For a tool's file: the call that wrote its current version."),
  })
  .meta({ id: "ConversationFile" });
export type ConversationFile = z.infer<typeof ConversationFile>;
export const ConversationFiles = z.strictObject({ files: z.array(ConversationFile) }).meta({ id: "ConversationFiles" });

/** A conversation with everything a reader needs: GET /api/conversations/{id} and a share link's GET. */
export const ConversationTrace = Conversation.extend({
  activeRunId: z.string().nullable().describe("The run in progress, on any instance."),
  lastEventId: z.number().int(),
  messages: z.array(Message),
  events: z.array(IdentifiedEvent),
  tools: z.array(RegisteredToolView.extend({ status: z.string(), createdAt: time })),
  runs: z.array(RunSummary),
  files: z.array(ConversationFile),
}).meta({ id: "ConversationTrace" });

export const RunStopping = z.strictObject({ runId: z.string(), status: z.literal("cancelling") });
export const ApprovalTaken = z.strictObject({ approvalId: z.string(), approved: z.boolean() });
export type ApprovalTaken = z.infer<typeof ApprovalTaken>;

const visibility = z.enum(["anyone", "members"]);
export const ShareLink = z.strictObject({ token: z.string(), url: z.url(), visibility });
export type ShareLink = z.infer<typeof ShareLink>;
export const SharedLinks = z.array(
  z.strictObject({
    token: z.string(),
    url: z.url(),
    visibility,
    createdAt: time,
    conversation: z.strictObject({ id: z.string(), title: z.string() }),
  }),
);
export type SharedLink = z.infer<typeof SharedLinks>[number];
export const Fork = z.strictObject({ id: z.string(), title: z.string(), url: z.string() });

/** A run sent again in the other mode, in a fork of its conversation up to its message. */
export const Rerun = z
  .strictObject({
    conversationId: z.string().describe("The fork's id."),
    runId: z.string().describe("The new run's id; it goes on in the background (follow the fork's events)."),
    compareUrl: z.string().describe("The compare page with the two runs side by side: /c/{id}/compare?a=…&b=…"),
  })
  .meta({ id: "Rerun" });
export type Rerun = z.infer<typeof Rerun>;
export type Fork = z.infer<typeof Fork>;

export const ToolStats = z
  .strictObject({
    executions: z.number().int(),
    successes: z.number().int(),
    failures: z.number().int(),
    cancelled: z.number().int(),
    meanDurationMs: z.number().nullable(),
    lastDurationMs: z.number().nullable(),
    lastUsedAt: time.nullable(),
  })
  .meta({ id: "ToolStats" });

/** SEAT's statistics, beside `stats`: the same counts, in SEAT's names, durations in seconds. */
export const SeatStatistics = z.strictObject({
  total_executions: z.number().int(),
  successful_executions: z.number().int(),
  failed_executions: z.number().int(),
  average_execution_time: z.number().nullable().describe("Seconds; null before the first call."),
  last_executed_at: time.nullable(),
});
export type SeatStatistics = z.infer<typeof SeatStatistics>;

export const Tool = z
  .strictObject({
    id: z.string().describe("The tool's id; every version shares it."),
    name: z.string(),
    description: z.string(),
    parameters_schema: z
      .record(z.string(), z.unknown())
      .describe(
        "JSON Schema of the inputs; register_tool's own name for it (the tool-registration PR's), kept on purpose.",
      ),
    input_schema: z.record(z.string(), z.unknown()).describe("SEAT's name for parameters_schema: the same schema."),
    language: ToolLanguage.describe("The language of this version's code."),
    code: z.string(),
    examples: z.array(ToolExample).describe("This version's examples; each passed when it was kept."),
    tested: z.boolean().describe("The version has examples, and passed them; false: untested."),
    failing_examples: z
      .array(ToolExample)
      .describe("Calls that went wrong, kept with the output they should have given: the next version must pass them."),
    version: z.number().int(),
    versionId: z.string(),
    scope: z.enum(["conversation", "library"]),
    status: z.enum(["active", "deprecated"]),
    conversationId: z.string().nullable().describe("Where it was made; null through the API."),
    createdAt: time,
    uses: z.array(z.string()).describe("The tools this version's code calls with tools.call."),
    secrets: z.array(z.string()).describe("The secrets this version's code reads by name (Settings → Secrets)."),
    usedBy: z
      .array(z.string())
      .optional()
      .describe("The names of the owner's tools whose latest version uses this one (the library's answers)."),
    dependents: z
      .array(DependentCheck)
      .optional()
      .describe("In the answer to a new version: the tools that use it, their examples run against it."),
    stats: ToolStats.optional(),
    statistics: SeatStatistics.optional(),
  })
  .meta({ id: "Tool" });
export type Tool = z.infer<typeof Tool>;

export const ToolPage = z.strictObject({ tools: z.array(Tool), nextCursor });
export type ToolPage = z.infer<typeof ToolPage>;
export const ToolMatches = z.strictObject({
  tools: z.array(
    Tool.extend({
      score: z
        .number()
        .min(0)
        .max(1)
        .describe(
          "Relevance, best first: 1 when first by words (and by meaning, with an embedding model); 0 when the tool only contains q as a piece of text.",
        ),
    }),
  ),
});
export const ToolVersions = z.strictObject({ versions: z.array(Tool) });

export const ToolTotals = z.strictObject({
  tools: z.number().int(),
  active: z.number().int(),
  deprecated: z.number().int(),
  library: z.number().int(),
  conversation: z.number().int(),
  executions: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  cancelled: z.number().int(),
  successRate: z.number().nullable(),
  meanDurationMs: z.number().nullable(),
});

/** POST /api/tools/{id}/execute: Toolsmith's `ok` and `durationMs`, and SEAT's own fields beside them. */
export const ToolRun = z
  .strictObject({
    ok: z.boolean(),
    output: z.unknown().describe("The tool's JSON result; null when it failed."),
    error: z.string().nullable(),
    truncated: z.boolean().describe("The output was longer than the limit and was cut, with a marker."),
    logs: z.array(z.string()).describe("What the code printed (capped); a failure's error carries it too."),
    images: z.array(ToolImage).optional().describe("Charts the code drew (matplotlib), as PNG."),
    durationMs: z.number().int(),
    success: z.boolean().describe("SEAT's name for `ok`, kept on purpose: a SEAT script reads this answer as is."),
    execution_time: z
      .number()
      .describe("SEAT's field, kept on purpose: the duration in seconds (as `durationMs / 1000`)."),
  })
  .meta({ id: "ToolRun" });
export type ToolRun = z.infer<typeof ToolRun>;

/** POST /api/tools/{id}/test: the version's examples, run again. */
export const ToolTestRun = z.strictObject({
  version: z.number().int(),
  passed: z.boolean().describe("Every example passed (false when there are none)."),
  outcomes: z.array(ExampleOutcome),
});
export type ToolTestRun = z.infer<typeof ToolTestRun>;

export const ExecutionStatus = z.enum(["succeeded", "failed", "cancelled"]);

export const Execution = z.strictObject({
  id: z.string(),
  source: z.enum(["chat", "api", "mcp"]),
  conversationId: z.string().nullable(),
  status: ExecutionStatus,
  input: z.unknown(),
  output: z.unknown().describe("The result as the caller saw it; null when the call failed."),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  version: z.number().int().nullable().describe("Which version ran; null once it was deleted."),
  createdAt: time,
});
export type Execution = z.infer<typeof Execution>;
export const Executions = z.strictObject({ executions: z.array(Execution) });

export const AuditEntry = z.strictObject({
  time,
  id: z.string(),
  conversationId: z.string().nullable(),
  runId: z.string().nullable(),
  tool: z.string(),
  profile: z.string().nullable(),
  decision: z.enum(["allowed", "refused", "rate_limited", "approved", "denied"]),
  reason: z.string().nullable(),
  inputHash: z.string().describe("SHA-256 of the input's JSON: what was sent, without keeping it."),
  inputSize: z.number().int(),
  outcome: ExecutionStatus.nullable().describe("Null when the call did not run."),
  durationMs: z.number().int(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditPage = z.strictObject({
  entries: z.array(
    AuditEntry.extend({
      owner: z.string().optional().describe('With ?all=1 (admins): the owner\'s address, or "anonymous".'),
    }),
  ),
  nextCursor,
});

export const Profiles = z.strictObject({
  profiles: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string().optional(),
      tools: z.array(z.string()),
      planner: z.boolean().describe("Its runs plan first unless a message says plan: false."),
      tool_config: z.record(z.string(), z.record(z.string(), z.unknown())),
      network: z
        .strictObject({
          allowed_domains: z.array(z.string()).optional(),
          blocked_domains: z.array(z.string()).optional(),
        })
        .describe("What the code of tools may reach: hosts and their subdomains, beyond public addresses only."),
      approval: z.array(z.string()),
      mcp_servers: z.array(z.string()).describe("The profiles file's MCP servers it may use."),
      personal_mcp_servers: z.boolean().describe("Whether a person's own MCP servers join its runs."),
      mcp_tools: z.array(z.string()).optional().describe("Only these MCP tools (<server>__<tool>), when given."),
      approve_mcp_tools: z.enum(["never", "unless_read_only", "always"]),
    }),
  ),
  defaultProfile: z.string(),
});

export const ApiToken = z
  .strictObject({ id: z.string(), name: z.string(), createdAt: time, lastUsedAt: time.nullable() })
  .meta({ id: "ApiToken" });
export type ApiToken = z.infer<typeof ApiToken>;
export const ApiTokens = z.array(ApiToken);
export const NewApiTokenAnswer = ApiToken.extend({ token: z.string().describe("Shown this once; stored hashed.") });
export type NewApiTokenAnswer = z.infer<typeof NewApiTokenAnswer>;

export const McpServer = z
  .strictObject({
    id: z
      .string()
      .nullable()
      .describe(
        "null for a server you cannot remove: the profiles file's (the operator's), and in your list an admin's for " +
          "everyone (the admin's list gives its id).",
      ),
    name: z.string().describe("Its tools are <name>__<tool>."),
    source: z
      .enum(["personal", "everyone", "file"])
      .describe(
        "Yours (through this API), an admin's for everyone (read-only, through /api/admin/mcp-servers), or the " +
          "profiles file's (read-only).",
      ),
    transport: z.enum(["http", "stdio"]),
    url: z.string().nullable().describe("null for a stdio server."),
    headerNames: z.array(z.string()).describe("The headers it is sent, by name: their values are never answered."),
    bearer: z.boolean().describe("Whether it is sent a bearer token (Authorization)."),
    createdAt: time.nullable(),
    status: z
      .strictObject({
        state: z.enum(["idle", "connecting", "connected", "failed"]),
        message: z.string().optional(),
      })
      .optional()
      .describe(
        "This instance's connection to it: connected (with `tools`), or failed with `message`, a sentence that says " +
          "why (refused, timed out, its credentials refused…). Adding a server and Refresh (POST …/{id}/refresh) " +
          "connect to it; until one of them or a run does on this instance, idle.",
      ),
    tools: z
      .array(z.strictObject({ name: z.string(), description: z.string().optional() }))
      .optional()
      .describe("Its tools as the server listed them on this instance's last connection to it."),
  })
  .meta({ id: "McpServer" });
export type McpServer = z.infer<typeof McpServer>;
export const McpServers = z.array(McpServer);

export const Secret = z
  .strictObject({
    name: z
      .string()
      .describe('What tools name it by: secrets.WEATHER_KEY (JavaScript), secrets["WEATHER_KEY"] (Python).'),
    hosts: z.array(z.string()).describe("The hosts (with their subdomains) a tool's request may carry its value to."),
    source: z
      .enum(["personal", "everyone"])
      .describe("Yours, or an admin's for everyone (read-only here; yours wins a name)."),
    createdAt: time,
    updatedAt: time,
    lastUsedAt: time
      .nullable()
      .describe("When a tool's request last carried it; null: never, or an admin's secret in a person's list."),
  })
  .describe("A secret, never its value.")
  .meta({ id: "Secret" });
export type Secret = z.infer<typeof Secret>;
export const Secrets = z.array(Secret);

export const Account = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    methods: z
      .strictObject({ passkeys: z.number().int(), oidc: z.number().int(), email: z.boolean() })
      .describe("How the account signs in: its passkeys, its identity-provider logins, and email links."),
    admin: z.boolean().describe("Named in TOOLSMITH_ADMIN_EMAILS."),
    createdAt: time,
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof Account>;

export const AccountSession = z
  .strictObject({
    id: z.string(),
    method: z.enum(["passkey", "oidc", "email"]).describe("How this browser signed in."),
    userAgent: z.string(),
    ip: z.string().describe("The client's address when last seen."),
    createdAt: time,
    lastSeenAt: time,
    current: z.boolean().describe("The session of the browser asking."),
  })
  .meta({ id: "AccountSession" });
export type AccountSession = z.infer<typeof AccountSession>;
export const AccountSessions = z.array(AccountSession);

export const EmailLinkSent = z.strictObject({ message: z.string() });
export const SignedIn = z.strictObject({ next: z.string().describe("The path to open now.") });

/** An attribute as OTLP/JSON writes it: the value under its type's key (stringValue, intValue, arrayValue …). */
const OtlpAttribute = z.object({ key: z.string(), value: z.record(z.string(), z.unknown()) });
const unixNano = z.union([z.string().regex(/^\d+$/), z.number().int()]);
const OtlpSpan = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentSpanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  name: z.string(),
  kind: z.number().int().describe("1 internal, 3 client."),
  startTimeUnixNano: unixNano,
  endTimeUnixNano: unixNano,
  attributes: z.array(OtlpAttribute),
  status: z.object({ code: z.number().int().describe("0 unset, 2 error."), message: z.string().optional() }),
});
export const OtlpTrace = z
  .object({
    resourceSpans: z.array(
      z.object({
        resource: z.object({ attributes: z.array(OtlpAttribute) }),
        scopeSpans: z.array(
          z.object({ scope: z.object({ name: z.string(), version: z.string().optional() }), spans: z.array(OtlpSpan) }),
        ),
      }),
    ),
  })
  .meta({
    id: "OtlpTrace",
    description:
      "A run as an OTLP/JSON ExportTraceServiceRequest (opentelemetry-proto), spans after the OpenTelemetry GenAI semantic conventions: invoke_agent, chat, execute_tool.",
  });

// Passkeys (issue 39)
export const Passkey = z
  .strictObject({
    id: z.string().describe("The credential id, base64url."),
    name: z.string(),
    createdAt: time,
    lastUsedAt: time.nullable(),
    transports: z.array(z.string()),
  })
  .meta({ id: "Passkey" });
export type Passkey = z.infer<typeof Passkey>;
export const Passkeys = z.array(Passkey);
export const WebAuthnOptions = z
  .looseObject({ challenge: z.string() })
  .describe("WebAuthn options for @simplewebauthn/browser (startRegistration / startAuthentication).");
export const SignedInAccount = z
  .strictObject({ id: z.string(), email: z.string(), name: z.string().nullable() })
  .meta({ id: "SignedInAccount" });

// Accounts: the admin's view of every account (issue 39).
export const AdminAccount = z.strictObject({
  id: z.string(),
  email: z.string(),
  createdAt: time,
  profiles: z.array(z.string()).nullable().describe("The agent profiles it may use; null for every one."),
});
export type AdminAccount = z.infer<typeof AdminAccount>;
export const AdminAccounts = z.array(AdminAccount);
