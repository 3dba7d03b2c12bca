/**
 * The request schemas of the API: the routes validate with them, and the OpenAPI document (lib/contract/openapi.ts)
 * is generated from them.
 */
import { z } from "zod";
import { ToolLanguage } from "@/lib/sandbox/languages";
import { codePolicy } from "@/lib/sandbox/policy";
import { ToolExample } from "./events";
import { MAX_EVENT_ID } from "./log";
import { MAX_NOTE_CHARS } from "./review";
import { HeaderValue, Headers, McpServerName, McpServerUrl } from "@/lib/settings/mcp-servers";
import { SECRET_LIMITS, SecretHost, SecretName } from "@/lib/settings/tool-secrets";

/** Examples a tool version carries, at most; each runs in the sandbox before the version is accepted. */
export const MAX_EXAMPLES = 10;
const toolInput = z.record(z.string(), z.unknown());

const toolName = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, "a letter, then letters, digits or _ (64 at most)")
  .describe("snake_case name, e.g. word_count");
const toolDescription = z.string().trim().min(1).max(2000);
/** Optional, and JavaScript when absent: every tool and client before Python sent none. */
const toolLanguage = z
  .enum(ToolLanguage.options, {
    error: `language must be ${ToolLanguage.options.map((language) => JSON.stringify(language)).join(" or ")}`,
  })
  .optional()
  .describe("The language of the tool's code: javascript (when absent) or python.");

const toolCode = z.string().min(1).max(codePolicy.maxCodeBytes);

/** The tools one tool's code may call, at most. */
export const MAX_USES = 16;
const toolUses = z
  .array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a tool's name: 1 to 64 letters, digits, _ and -"))
  .max(MAX_USES)
  .refine((names) => new Set(names).size === names.length, "list each tool once")
  .default([])
  .describe(
    "The tools the code calls with tools.call(name, input): your library tools, built-ins, MCP tools " +
      "(server__tool). Each call must name one of these as a string literal; none when absent.",
  );

const toolSecrets = z
  .array(SecretName)
  .max(SECRET_LIMITS.perTool, `a tool may use at most ${SECRET_LIMITS.perTool} secrets`)
  .refine((names) => new Set(names).size === names.length, "list each secret once")
  .default([])
  .describe(
    "The secrets (API keys) the code uses, by name: the person adds each in Settings → Secrets with the hosts it " +
      'may be sent to. The code reads secrets.NAME (JavaScript) or secrets["NAME"] (Python) and gets a ' +
      "placeholder, which requests to those hosts carry as the value. None when absent.",
  );

/**
 * A tool definition with its code in one language: what the tool writer answers with. register_tool and
 * POST /api/tools take `NewToolDefinition`, which comes to this.
 */
export const ToolDefinition = z.strictObject({
  name: toolName,
  description: toolDescription.describe("What the tool does, for the model."),
  parameters_schema: z
    .record(z.string(), z.unknown())
    .describe(
      'JSON Schema of the inputs, e.g. {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}',
    ),
  language: toolLanguage,
  code: toolCode.describe(
    "The source: JavaScript defining function run(inputs), or Python defining def run(inputs) with language python.",
  ),
  examples: z
    .array(ToolExample)
    .max(MAX_EXAMPLES)
    .default([])
    .describe(
      "Two or three examples, ordinary and edge cases. Each runs before the tool is accepted; a tool whose " +
        "output differs is rejected with the difference. A tool without examples is marked untested.",
    ),
  uses: toolUses,
  secrets: toolSecrets,
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/**
 * register_tool's input and the body of POST /api/tools with code: `code` in `language` (JavaScript when absent), or
 * the dynamic-tool-registration PR's `python_code`. It comes to one code and its language.
 */
export const NewToolDefinition = ToolDefinition.extend({
  code: ToolDefinition.shape.code.optional(),
  python_code: toolCode
    .optional()
    .describe('Python source defining def run(inputs): the same as code with language "python".'),
})
  .superRefine(({ code, python_code, language }, context) => {
    const problem = (message: string, path: string) => context.addIssue({ code: "custom", message, path: [path] });
    if (code === undefined && python_code === undefined)
      problem("the tool's source is required: code (with language) or python_code", "code");
    else if (code !== undefined && python_code !== undefined && code !== python_code)
      problem("send the source once: code or python_code, not both", "python_code");
    else if (python_code !== undefined && language !== undefined && language !== "python")
      problem(`python_code is Python: drop language "${language}", or send the source as code`, "language");
  })
  .transform(({ python_code, code, language, ...definition }): ToolDefinition & { language: ToolLanguage } => ({
    ...definition,
    language: language ?? (python_code === undefined ? "javascript" : "python"),
    code: (code ?? python_code)!,
  }));
export type NewToolDefinition = z.output<typeof NewToolDefinition>;

/** A tool to write from a description: POST /api/tools/generate, and POST /api/tools without code (SEAT's form). */
export const ToolDescription = z.strictObject({
  description: z
    .string()
    .trim()
    .min(1, "description must not be empty")
    .max(4000)
    .describe('What the tool should do, in plain words, e.g. "Convert a temperature from Celsius to Fahrenheit".'),
  name: toolName.optional().describe("The name to give it; the model picks one when absent."),
  language: toolLanguage,
});
export type ToolDescription = z.infer<typeof ToolDescription>;

/** POST /api/tools: with code, the tool as written; with only a description, the model writes it. */
export const NewTool = z.union([NewToolDefinition, ToolDescription]);

/** An example to keep: a past execution's input and output, or one written out. */
export const NewToolExample = z.union([
  z.strictObject({ executionId: z.string().max(64).describe("A call from GET /api/tools/{id}/executions.") }),
  ToolExample,
  z
    .strictObject({
      input: z.record(z.string(), z.unknown()),
      expected_output: z.unknown().describe("What the call should have returned."),
      failing: z.literal(true),
    })
    .describe(
      "A failing example: a call that went wrong, with the output it should have given. The latest version must " +
        "fail it (one it passes is an ordinary example); the next version of the tool must pass it.",
    ),
]);
export type NewToolExample = z.infer<typeof NewToolExample>;

/** Items per page of a listing. */
const limit = z.coerce.number().int().min(1).max(200).default(50).describe("Items per page, 1–200.");

const profile = z
  .string()
  .max(64)
  .describe("An agent profile's name (GET /api/profiles); the default profile when absent.");

export const NewConversation = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  profile: profile.optional(),
});

export const ConversationListQuery = z.object({
  limit,
  cursor: z.string().max(400).optional().describe("The nextCursor of the previous page."),
  verdict: z
    .enum(["down"])
    .optional()
    .describe("Only conversations with a run that someone (you, or a reviewer through its link) gave a thumbs down."),
});

export const ConversationChange = z
  .object({
    title: z.string().trim().min(1, "title must not be empty").max(200).optional(),
    profile: profile.optional(),
  })
  .refine((change) => change.title !== undefined || change.profile !== undefined, "Send a title or a profile.");

export const NewMessage = z.object({
  content: z
    .string({ error: 'content is required: {"content": "your message"}' })
    .trim()
    .min(1, "content must not be empty"),
  files: z
    .array(z.string().min(1).max(64), { error: 'files is a list of file ids: {"files": ["<id>"]}' })
    .max(100)
    .optional()
    .describe("Files of the conversation (uploaded with POST /api/conversations/{id}/files) this message attaches."),
  plan: z
    .boolean({ error: 'plan is true or false: {"content": "…", "plan": true}' })
    .optional()
    .describe(
      "Plan first: the run's first step writes a plan, a checklist it keeps current. Absent: as the profile says.",
    ),
});

export const ApprovalAnswer = z.strictObject({
  approved: z.boolean({ error: 'approved is required: {"approved": true} or {"approved": false}' }),
});

/** A fork: the whole conversation, or up to the end of one step ("continue from here"). */
export const RerunRequest = z.strictObject({
  plan: z
    .boolean({ error: 'plan is true (run again planning first) or false (without a plan): {"plan": true}' })
    .describe("The mode of the new run: true plans first, false does not."),
});

export const ForkRequest = z.strictObject({
  eventId: z
    .number({ error: "eventId must be the id of a step's step_started or a tool call's tool_call event, a number" })
    .int("eventId must be a whole number")
    .min(1, "eventId must be at least 1")
    .max(MAX_EVENT_ID, `eventId must be at most ${MAX_EVENT_ID}`)
    .optional()
    .describe(
      "A step's step_started or a tool call's tool_call: copy up to the end of that step (its run is closed as " +
        "cancelled there, unless only its end followed). Absent: the whole conversation.",
    ),
});

export const NewApiToken = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(100).describe("What the token is for, e.g. ci-script."),
});

const STDIO_REFUSED =
  "stdio servers (command, args, env) are configured by the server's operator in the profiles file " +
  "(mcp_servers:); here, connect a server by its url";
/** A stdio server's keys, refused with the sentence above before anything else is looked at. */
const stdioKey = z.never({ error: STDIO_REFUSED }).optional().describe(`Refused: ${STDIO_REFUSED}.`);
export const NewMcpServer = z
  .strictObject({
    command: stdioKey,
    args: stdioKey,
    env: stdioKey,
    name: McpServerName.describe("Its tools are called <name>__<tool>: lower-case letters, digits, _ and -."),
    url: McpServerUrl.describe("The server's Streamable HTTP endpoint, http:// or https://."),
    headers: Headers.optional().describe("Headers sent with every request, e.g. X-Api-Key; stored sealed."),
    bearerToken: HeaderValue.min(1, "bearerToken must not be empty")
      .optional()
      .describe("Sent as Authorization: Bearer <token>; stored sealed, never shown again."),
  })
  .refine(
    (server) =>
      server.bearerToken === undefined ||
      !Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === "authorization"),
    { path: ["bearerToken"], message: "give the token as bearerToken or as an Authorization header, not both" },
  );
export type NewMcpServer = z.infer<typeof NewMcpServer>;

export const NewSecret = z
  .strictObject({
    name: SecretName.describe("An environment-variable name, as tools read it: secrets.WEATHER_KEY."),
    value: z
      .string()
      .min(
        8,
        "a secret's value is at least 8 characters (a shorter one would be found all over the replies it is taken out of)",
      )
      .regex(/^[^\u0000-\u001f\u007f]+$/, "a secret's value is one line of text, without control characters")
      .refine((value) => Buffer.byteLength(value) <= SECRET_LIMITS.valueBytes, {
        message: `a secret's value is at most ${SECRET_LIMITS.valueBytes / 1024} KB`,
      })
      .describe("Stored sealed (AES-256-GCM); never answered, never shown to a tool's code or the model."),
    hosts: z
      .array(SecretHost)
      .min(1, "give at least one host the value may be sent to (api.openweathermap.org)")
      .max(SECRET_LIMITS.hostsPerSecret, `a secret may name at most ${SECRET_LIMITS.hostsPerSecret} hosts`)
      .describe(
        "The hosts a tool's request may carry the value to, each with its subdomains (example.com, *.example.com).",
      ),
  })
  .meta({ id: "NewSecret" });
export type NewSecret = z.infer<typeof NewSecret>;

export const EmailLinkRequest = z.strictObject({
  email: z.email("email must be an email address").max(320).describe("The address to send the sign-in link to."),
  next: z.string().max(2000).optional().describe("A path of this app to open once signed in (default: /)."),
});

export const EmailLinkUse = z.strictObject({
  token: z
    .string()
    .regex(/^[\w-]{43}$/, "token must be the one in the link")
    .describe("The link's `token`."),
});

export const SignOut = z.strictObject({
  everywhere: z.boolean().default(false).describe("End every session of the account, not only this browser's."),
});

export const AccountDeletion = z.strictObject({
  confirm: z.string().max(320).describe("The account's email address, typed: deleting cannot be undone."),
});

export const ToolListQuery = z.object({
  status: z.enum(["active", "deprecated"]).optional().describe("Only active or only deprecated tools."),
  scope: z
    .enum(["library", "conversation"])
    .optional()
    .describe("Only library tools, or only tools that belong to one conversation."),
  language: toolLanguage.describe("Only tools whose latest version is in this language."),
  q: z.string().trim().min(1).max(200).optional().describe("Case-insensitive text in the name or description."),
  limit,
  cursor: z.string().max(400).optional().describe("The nextCursor of the previous page."),
});

export const ToolSearchQuery = z.object({
  q: z
    .string({ error: "q is required: /api/tools/search?q=word" })
    .trim()
    .min(1, "q must not be empty")
    .max(200)
    .describe(
      "What the tool does, in words (matched stemmed, any of them, over name, parameter names and description), or a piece of its name or description.",
    ),
  limit,
});

export const ToolVersionQuery = z.object({
  version: z.coerce.number().int().min(1).optional().describe("A version number; the latest when absent."),
});

export const ToolExecutionsQuery = z.object({ limit });

export const ToolChange = z
  .strictObject({
    status: z
      .enum(["active", "deprecated"])
      .optional()
      .describe("deprecated: kept, but no longer offered to the model."),
    scope: z
      .enum(["library", "conversation"])
      .optional()
      .describe("library: offered in every conversation of its owner."),
    description: z.string().trim().min(1).max(2000).optional(),
  })
  .refine((change) => Object.keys(change).length > 0, "Send at least one of status, scope, description.");

const auditFilters = {
  tool: z.string().max(64).optional().describe("Only calls of this tool."),
  conversation: z.string().max(64).optional().describe("Only calls from this conversation."),
  outcome: z.enum(["succeeded", "failed", "cancelled"]).optional().describe("Only calls that ended so."),
  all: z
    .literal("1")
    .optional()
    .describe("Admins only: every account's calls, each with its owner (404 for anyone else)."),
};

export const AuditQuery = z.object({
  ...auditFilters,
  limit,
  cursor: z.string().max(400).optional().describe("The nextCursor of the previous page."),
});

export const AuditExportQuery = z.object({ ...auditFilters, format: z.enum(["csv", "jsonl"]).default("csv") });

/** Toolsmith's `input`, or SEAT's `input_data`; one of them. */
export const ToolExecution = z
  .strictObject({
    input: toolInput.optional().describe("The tool's inputs, matching its parameters_schema."),
    input_data: toolInput.optional().describe("SEAT's name for `input`."),
  })
  .refine((body) => body.input === undefined || body.input_data === undefined, "Send input or input_data, not both.")
  .transform((body) => ({ input: body.input ?? body.input_data ?? {} }));

const reviewNote = z.string().trim().max(MAX_NOTE_CHARS, `a note is at most ${MAX_NOTE_CHARS} characters`);

/** POST …/annotations: a note on a step or a tool call of the trace. */
export const NewAnnotation = z.strictObject({
  eventId: z
    .number()
    .int()
    .min(1)
    .describe("The annotated card: the id of a step's step_started or of a tool call's tool_call event."),
  label: z.string().describe("One of the labels the server offers (TOOLSMITH_ANNOTATION_LABELS)."),
  note: reviewNote.default(""),
});

/** POST …/verdicts: a thumbs up or down on a run; a reviewer's later verdict on the run replaces theirs. */
export const NewVerdict = z.strictObject({
  runId: z.string().min(1).max(100),
  verdict: z.enum(["up", "down"]),
  note: reviewNote.optional(),
});

/** PUT /api/display-name: the name an identity signs its annotations and verdicts with; empty to go back to none. */
export const DisplayNameBody = z.strictObject({
  name: z.string().trim().max(60, "a display name is at most 60 characters"),
});

// Passkeys (issue 39)
const passkeyName = z.string().trim().min(1, "name must not be empty").max(100).describe("e.g. Work laptop.");
/** The browser's WebAuthn answer, as @simplewebauthn/browser gives it; the server verifies every field. */
const webAuthnAnswer = z.looseObject({
  id: z.string().min(1),
  rawId: z.string(),
  type: z.literal("public-key"),
  response: z.looseObject({}),
});
export const PasskeyRegistration = z.strictObject({ response: webAuthnAnswer, name: passkeyName.optional() });
export const PasskeySignIn = z.strictObject({ response: webAuthnAnswer });
export const PasskeyRename = z.strictObject({ name: passkeyName });

// Accounts: members-only share links, the admin's per-account profiles (issue 39).
export const ShareRequest = z.strictObject({
  visibility: z
    .enum(["anyone", "members"])
    .default("anyone")
    .describe("Who may open the link: anyone who holds it, or only accounts signed in to this server."),
});
export const AccountProfilesBody = z.strictObject({
  profiles: z
    .array(z.string().min(1).max(200))
    .max(200)
    .nullable()
    .describe("The agent profiles the account may use; null for every one."),
});
