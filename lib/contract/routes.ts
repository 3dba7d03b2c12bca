import { z } from "zod";
import { Passkey, Passkeys, SignedInAccount, WebAuthnOptions } from "./responses";
import { PasskeyRegistration, PasskeyRename, PasskeySignIn } from "./requests";
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";
import { SEGMENT_TOKEN } from "./log";
import {
  AccountDeletion,
  ApprovalAnswer,
  AuditExportQuery,
  AuditQuery,
  ConversationChange,
  ConversationListQuery,
  DisplayNameBody,
  EmailLinkRequest,
  EmailLinkUse,
  ShareRequest,
  AccountProfilesBody,
  ForkRequest,
  RerunRequest,
  NewAnnotation,
  NewApiToken,
  NewConversation,
  NewMcpServer,
  NewSecret,
  NewMessage,
  NewTool,
  NewToolExample,
  NewVerdict,
  SignOut,
  ToolChange,
  ToolDescription,
  ToolExecution,
  ToolExecutionsQuery,
  ToolListQuery,
  ToolSearchQuery,
  ToolVersionQuery,
} from "./requests";
import {
  Account,
  AccountSessions,
  AdminAccount,
  AdminAccounts,
  ApiTokens,
  ApprovalTaken,
  AuditPage,
  ConversationFiles,
  ConversationPage,
  ConversationTrace,
  Conversation,
  EmailLinkSent,
  ErrorBody,
  Executions,
  Fork,
  Rerun,
  Health,
  JsonRpcMessage,
  McpServer,
  McpServers,
  Secret,
  Secrets,
  NewApiTokenAnswer,
  OtlpTrace,
  Profiles,
  RunStopping,
  ShareLink,
  SharedLinks,
  SignedIn,
  Tool,
  ToolMatches,
  ToolPage,
  ToolRefused,
  ToolRun,
  ToolTestRun,
  ToolTotals,
  ToolVersions,
} from "./responses";
import { GenerationEvent, GenerationRefused } from "./generation";
import {
  SeatError,
  SeatExecution,
  SeatHealth,
  SeatIndex,
  SeatListQuery,
  SeatNewTool,
  SeatRun,
  SeatSearchQuery,
  SeatTool,
  SeatTools,
} from "./seat";
import { Annotation, Verdict } from "./events";

/*
 * The API's routes as data: what each takes and answers, by status. The OpenAPI document is generated from it
 * (lib/contract/openapi.ts), and the integration tests check every answer against it (tests/support/api.ts).
 */

const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
const eventStream = {
  description:
    "text/event-stream of the run's events; each has an `id` (per conversation) and a JSON `data`. A stream may end with a `resync` message (id 0): read the log again from the start (after=0)",
  content: { "text/event-stream": { schema: z.string() } },
};
/** Where a client resumes the events (lib/http/access.ts resumePoint). */
const resumeQuery = z.object({
  after: z.string().optional().meta({ description: "Replay the events after this id (as Last-Event-ID)." }),
  segment: z.string().optional().meta({
    description:
      "The id of the last run_started or run_resumed the client saw. When the log has since begun another segment at or before `after` (the instance that ran the run died after showing events it never stored, and another took the run over), the stream is one `resync` message.",
  }),
  watch: z.enum(["1"]).optional().meta({
    description:
      "Keep the stream open after the run ends, or while none runs: it goes on with every event the log gets (annotations, verdicts, the next runs) until the client closes it.",
  }),
  segmentToken: z.string().regex(SEGMENT_TOKEN).optional().meta({
    description:
      "With `segment` (then at most `after`): that event's `segment` field, and the event at `segment` is checked too. Two segments can begin at the same id (one shown but never stored); the token tells them apart.",
  }),
});
/** Error answers by status, each described by its meaning in the table below (OpenAPI requires a description). */
const errors = (...statuses: ErrorStatus[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), json(ErrorBody, ERROR_MEANINGS[status])]));
const ERROR_MEANINGS = {
  400: "The request is malformed; the message says how.",
  401: "The API token is not valid or was revoked.",
  403: "A browser write from another site.",
  404: "Not found, or not yours.",
  409: "A run of the conversation is active.",
  413: "Too large.",
  415: "The body is not declared as JSON.",
  422: "The tool's code or schema was refused.",
  429: "Too many requests; see Retry-After.",
  500: "The server failed (its database, say); the error was logged.",
  503: "Not confirmed in time; send it again (see Retry-After).",
} as const satisfies Record<number, string>;
/** A status the table gives a meaning to: another one is a compile error, never an answer without a description. */
type ErrorStatus = keyof typeof ERROR_MEANINGS;
const id = z.object({ id: z.string() });
const secretName = z.object({ name: z.string().describe("The secret's name: WEATHER_KEY.") });
/** Where a secret's value goes, and where it never does: both routes that keep one say it. */
const SECRET_VALUE_RULES =
  "The value is stored sealed (AES-256-GCM, bound to its row) and never answered: not here, not to a tool's code " +
  "(which reads a placeholder), not to the model, the trace, exports, share links, the audit log or telemetry. A " +
  "request of a tool that names the secret carries the value only to `hosts` (and their subdomains); to any other " +
  "host it is refused. Sending a name that is kept already replaces its value and hosts (200).";
/** A generation's events, as lib/contract/generation.ts lists them. */
const generationStream = {
  description:
    "text/event-stream: attempt_started, attempt_written (the code), attempt_failed (violations or failing examples), then tool_created or generation_failed (with the status and body the JSON answer has).",
  content: { "text/event-stream": { schema: GenerationEvent } },
};
const generationErrors = {
  "429": json(ErrorBody, "Too many tools written in a minute; see Retry-After."),
  "502": json(ErrorBody, "The model server failed; the message names how."),
  "503": json(ErrorBody, "No model is configured."),
};
/** A file's download (lib/files/download.ts): its bytes, typed as sniffed, with `nosniff` and a sandbox CSP. */
const fileBytes = {
  description:
    "The bytes, with Content-Disposition (inline only for images, PDF and plain text), X-Content-Type-Options: nosniff, a sandbox Content-Security-Policy and an ETag.",
  content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
};
const notModified = { description: "Unchanged since the ETag sent in If-None-Match." };
const downloadQuery = z.object({
  download: z.enum(["1"]).optional().meta({ description: "Always as an attachment, even an image." }),
});
const exportQuery = z.object({ format: z.enum(["json", "md"]).optional() });
const token = z.object({ token: z.string() });
const FORK_DESCRIPTION =
  "A new conversation of yours: the messages, runs, event log and tool versions, with fresh ids, and without the " +
  "reviewers' annotations and verdicts. With `eventId` (a step's step_started or a tool call's tool_call) only up " +
  "to the end of that step: the runs before it, the user's messages up to it, and the tools registered until " +
  "then; its run ends there as cancelled. 404 when the id names no step or tool call; 409 for a whole copy while " +
  "a run is in progress. An empty body copies it whole.";
const noContent = { "204": { description: "Done; no body." } };
/** Adding an MCP server connects to it (lib/tools/mcp-tools.ts), and one that cannot be reached is kept. */
const CONNECTS_AS_ADDED =
  "Once stored, the server is connected to and its tools listed, each within TOOLSMITH_MCP_CONNECT_TIMEOUT_MS. " +
  "One that cannot be reached (refused, timed out, its credentials refused…) is stored all the same, its `status` " +
  "failed with why, so that it can be fixed and refreshed (POST …/{id}/refresh); an invalid URL is 400 and stores " +
  "nothing.";
const CONNECTION = "`status` is connected, with its `tools`, or failed, with why in `message`.";
const REFRESH =
  "A new connection to the server and a new tools/list, each within TOOLSMITH_MCP_CONNECT_TIMEOUT_MS, on the " +
  "instance that answers; calls in flight on the old connection finish on it.";
const UNREADABLE_HEADERS = json(
  ErrorBody,
  "Its stored headers no longer open (sealed under another secret, or altered): remove it and add it again.",
);

function operation(summary: string, spec: Omit<ZodOpenApiOperationObject, "summary">): ZodOpenApiOperationObject {
  return { summary, ...spec };
}

/** The review routes, the same for the owner (`{id}`) and for a link holder (`{token}`, 404 once revoked). */
function reviewRoutes(path: z.ZodObject, who: string): ZodOpenApiPathsObject {
  const annotationPath = path.extend({ annotationId: z.string() });
  return {
    annotations: {
      post: operation(`Annotate a step or a tool call (${who}); streamed as annotation_added`, {
        requestParams: { path },
        requestBody: { content: { "application/json": { schema: NewAnnotation } } },
        responses: { "201": json(Annotation, "The annotation."), ...errors(400, 401, 404, 415, 429, 503) },
      }),
    },
    "annotations/{annotationId}": {
      delete: operation(`Delete an annotation (${who}: its author, or the owner); streamed as annotation_deleted`, {
        requestParams: { path: annotationPath },
        responses: { ...noContent, ...errors(401, 404, 429, 503) },
      }),
    },
    verdicts: {
      post: operation(`Thumbs up or down on a run (${who}); replaces your earlier one; streamed as verdict_added`, {
        requestParams: { path },
        requestBody: { content: { "application/json": { schema: NewVerdict } } },
        responses: { "201": json(Verdict, "The verdict."), ...errors(400, 401, 404, 415, 429, 503) },
      }),
    },
  };
}

const under = (prefix: string, paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject =>
  Object.fromEntries(Object.entries(paths).map(([path, item]) => [`${prefix}/${path}`, item]));

const routes: ZodOpenApiPathsObject = {
  "/api/health": {
    get: operation("Liveness and sandbox load", {
      security: [],
      responses: {
        "200": json(Health, "Up."),
      },
    }),
  },
  "/api/conversations": {
    get: operation("Your conversations, newest first", {
      requestParams: { query: ConversationListQuery },
      responses: { "200": json(ConversationPage, "A page."), ...errors(400, 401) },
    }),
    post: operation("Start a conversation", {
      requestBody: { content: { "application/json": { schema: NewConversation } } },
      responses: { "201": json(Conversation, "Created."), ...errors(400, 401, 403, 415, 429) },
    }),
  },
  "/api/conversations/{id}": {
    get: operation("A conversation with its messages, events, tools and runs", {
      requestParams: { path: id },
      responses: { "200": json(ConversationTrace, "The conversation."), ...errors(404) },
    }),
    patch: operation("Rename", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: ConversationChange } } },
      responses: { "200": json(Conversation, "Renamed."), ...errors(400, 403, 404, 415) },
    }),
    delete: operation("Delete, with its own tools", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(404, 409) },
    }),
  },
  "/api/conversations/{id}/messages": {
    post: operation("Send a message: starts a run and streams it", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: NewMessage } } },
      responses: { "200": eventStream, ...errors(400, 403, 404, 409, 413, 415, 429) },
    }),
  },
  "/api/conversations/{id}/files": {
    post: operation("Upload files into the conversation's workspace: one or more multipart parts named `file`", {
      requestParams: { path: id },
      requestBody: {
        content: {
          "multipart/form-data": {
            schema: z.object({ file: z.array(z.string().meta({ format: "binary" })) }),
          },
        },
      },
      responses: {
        "201": json(ConversationFiles, "Stored, each with its plain unique name and sniffed type."),
        ...errors(400, 403, 404, 413, 429),
      },
    }),
    get: operation("The conversation's files: its uploads and the files its tools wrote", {
      requestParams: { path: id },
      responses: { "200": json(ConversationFiles, "Oldest first."), ...errors(404) },
    }),
  },
  "/api/conversations/{id}/events": {
    get: operation("Replay the stored events after Last-Event-ID (or ?after=N), then follow the live run", {
      requestParams: { path: id, query: resumeQuery },
      responses: { "200": eventStream, ...errors(400, 404, 429) },
    }),
  },
  "/api/conversations/{id}/cancel": {
    post: operation("Stop the active run", {
      requestParams: { path: id },
      responses: {
        "202": json(RunStopping, "Stopping."),
        ...errors(404, 409),
      },
    }),
  },
  "/api/conversations/{id}/approvals/{approvalId}": {
    post: operation("Approve or deny a tool call waiting for approval", {
      requestParams: { path: z.object({ id: z.string(), approvalId: z.string() }) },
      requestBody: { content: { "application/json": { schema: ApprovalAnswer } } },
      responses: {
        "200": json(ApprovalTaken, "Answered, or the same answer was taken before; the run goes on."),
        ...errors(400, 404, 409, 415, 503),
      },
    }),
  },
  "/api/conversations/{id}/share": {
    get: operation("The conversation's share link", {
      requestParams: { path: id },
      responses: { "200": json(ShareLink, "The link."), ...errors(404) },
    }),
    post: operation("Share by link", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: ShareRequest } } },
      responses: {
        "200": json(ShareLink, "The existing link, its visibility as asked."),
        "201": json(ShareLink, "A new link."),
        ...errors(400, 404, 415),
      },
    }),
    delete: operation("Revoke the link", { requestParams: { path: id }, responses: { ...noContent, ...errors(404) } }),
  },
  "/api/conversations/{id}/fork": {
    post: operation("Copy your conversation, whole or up to one of its steps, to try another path", {
      description: FORK_DESCRIPTION,
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: ForkRequest } } },
      responses: {
        "201": json(Fork, "The copy."),
        ...errors(400, 404, 409, 415, 429),
      },
    }),
  },
  "/api/conversations/{id}/runs/{runId}/rerun": {
    post: operation("Run one of your runs again in a fork, planning first or not, to compare the two", {
      description:
        "Copies the conversation up to (not including) the run's message into a new conversation of yours, then " +
        "sends that message (and its files) again there in the mode asked. The compare page shows both runs.",
      requestParams: { path: z.object({ id: z.string(), runId: z.string() }) },
      requestBody: { content: { "application/json": { schema: RerunRequest } } },
      responses: {
        "201": json(Rerun, "The fork and its new run, which goes on in the background."),
        ...errors(400, 403, 404, 409, 415, 429),
      },
    }),
  },
  "/api/conversations/{id}/export": {
    get: operation("Download as JSON or Markdown", {
      requestParams: { path: id, query: exportQuery },
      responses: { "200": { description: "The file." }, ...errors(400, 404) },
    }),
  },
  "/api/conversations/{id}/runs/{runId}/otlp": {
    get: operation("Download a run as OpenTelemetry JSON", {
      requestParams: { path: z.object({ id: z.string(), runId: z.string() }) },
      responses: {
        "200": json(OtlpTrace, "The run's trace, as its OTLP export sends it (message content as configured)."),
        ...errors(404),
      },
    }),
  },
  "/api/shares": {
    get: operation("Your share links", {
      responses: { "200": json(SharedLinks, "The links."), ...errors(401) },
    }),
  },
  "/api/share/{token}": {
    get: operation("A shared conversation, read-only", {
      security: [],
      requestParams: { path: token },
      responses: { "200": json(ConversationTrace, "The conversation."), ...errors(401, 404) },
    }),
  },
  "/api/share/{token}/files/{id}": {
    get: operation("A shared conversation's file: its bytes, read-only, while the link lasts", {
      security: [],
      requestParams: { path: token.extend(id.shape), query: downloadQuery },
      responses: { "200": fileBytes, "304": notModified, ...errors(401, 404) },
    }),
  },
  "/api/share/{token}/events": {
    get: operation("A shared conversation's events, live; resumed as the conversation's own", {
      security: [],
      requestParams: { path: token, query: resumeQuery },
      responses: { "200": eventStream, ...errors(400, 401, 404, 429) },
    }),
  },
  "/api/share/{token}/export": {
    get: operation("Download a shared conversation", {
      security: [],
      requestParams: { path: token, query: exportQuery },
      responses: { "200": { description: "The file." }, ...errors(400, 401, 404) },
    }),
  },
  "/api/share/{token}/fork": {
    post: operation("Continue a shared conversation in your chats, whole or from one of its steps", {
      description: FORK_DESCRIPTION,
      requestParams: { path: token },
      requestBody: { content: { "application/json": { schema: ForkRequest } } },
      responses: {
        "201": json(Fork, "The copy."),
        ...errors(400, 401, 404, 409, 415, 429),
      },
    }),
  },
  ...under("/api/conversations/{id}", reviewRoutes(id, "the owner")),
  ...under("/api/share/{token}", reviewRoutes(token, "anyone with the link")),
  "/api/files/{id}": {
    get: operation("A file's bytes: images, PDF and plain text inline, anything else as an attachment", {
      requestParams: { path: id, query: downloadQuery },
      responses: { "200": fileBytes, "304": notModified, ...errors(404) },
    }),
    delete: operation("Delete a file: its bytes go from the store and it leaves the workspace", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(403, 404) },
    }),
  },
  "/api/display-name": {
    get: operation("The name you sign annotations and verdicts with (none: Owner, or Reviewer N)", {
      responses: { "200": json(DisplayNameBody, "The name; empty when none."), ...errors(401) },
    }),
    put: operation("Set the name you sign annotations and verdicts with; empty to have none", {
      requestBody: { content: { "application/json": { schema: DisplayNameBody } } },
      responses: { "200": json(DisplayNameBody, "Set."), ...errors(400, 401, 415) },
    }),
  },
  "/api/audit": {
    get: operation("Your audit log: every tool call with the profile's decision, newest first", {
      requestParams: { query: AuditQuery },
      responses: {
        "200": json(AuditPage, "A page."),
        ...errors(400, 401, 404),
      },
    }),
  },
  "/api/audit/export": {
    get: operation("The audit log as CSV or JSON Lines", {
      requestParams: { query: AuditExportQuery },
      responses: {
        "200": {
          description: "The file.",
          content: { "text/csv": { schema: z.string() }, "application/x-ndjson": { schema: z.string() } },
        },
        ...errors(400, 401, 404),
      },
    }),
  },
  "/api/profiles": {
    get: operation("The agent profiles and their tools", {
      responses: {
        "200": json(Profiles, "The profiles."),
        ...errors(401),
      },
    }),
  },
  "/api/tools": {
    get: operation("Your tools (latest versions), by name, a page at a time", {
      requestParams: { query: ToolListQuery },
      responses: {
        "200": json(ToolPage, "A page."),
        ...errors(400, 401),
      },
    }),
    post: operation("Create a library tool (or a new version of one with that name)", {
      description:
        "With `code` (in `language`: JavaScript when absent, or Python) or the tool-registration PR's " +
        "`python_code`: the tool as written, checked by its language's code policy and run against its `examples` " +
        "(a tool without examples is stored untested). With only a `description` (and an optional `name`), SEAT's form: " +
        "the model writes the tool, which is checked, tested and repaired as POST /api/tools/generate does; the " +
        "answer is JSON once it is done, or that route's event stream for a client that sends " +
        "`Accept: text/event-stream`.",
      requestBody: { content: { "application/json": { schema: NewTool } } },
      responses: {
        "200": generationStream,
        "201": json(Tool, "Created, with its statistics."),
        "422": json(
          z.union([GenerationRefused, ToolRefused]),
          "Refused: the code policy's violations, or the examples with what the tool returned; for a description, the last of the attempts.",
        ),
        ...generationErrors,
        ...errors(400, 401, 415),
      },
    }),
  },
  "/api/tools/generate": {
    post: operation("Write a tool from a description: written, checked, tested, repaired, stored", {
      description:
        "The model writes the tool with examples (OpenAI's `chat` and `responses` dialects through a JSON-schema " +
        "structured output; `compatible` servers through a forced call of one tool, `write_tool`). Its code is " +
        "checked and its examples run; a failure goes back to the model to repair, up to " +
        "TOOLSMITH_GENERATE_ATTEMPTS attempts. Streams every attempt as Server-Sent Events; a client that " +
        "accepts only `application/json` gets the outcome as JSON.",
      requestBody: { content: { "application/json": { schema: ToolDescription } } },
      responses: {
        "200": generationStream,
        "201": json(Tool, "Created: stored in your library with its examples."),
        "422": json(
          z.union([GenerationRefused, ErrorBody]),
          "No attempt passed (the last one's violations or examples; nothing is stored), or the name is a built-in's.",
        ),
        ...generationErrors,
        ...errors(400, 401, 415),
      },
    }),
  },
  "/api/tools/search": {
    get: operation("Search your tools, best match first", {
      requestParams: { query: ToolSearchQuery },
      responses: { "200": json(ToolMatches, "Matches."), ...errors(400, 401) },
    }),
  },
  "/api/tools/stats": {
    get: operation("Totals over your tools and their calls", {
      responses: {
        "200": json(ToolTotals, "The totals."),
        ...errors(401),
      },
    }),
  },
  "/api/tools/{id}": {
    get: operation("A tool with its statistics", {
      requestParams: { path: id, query: ToolVersionQuery },
      responses: { "200": json(Tool, "The tool."), ...errors(400, 401, 404) },
    }),
    patch: operation("Deprecate, move to the library, or describe anew", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: ToolChange } } },
      responses: { "200": json(Tool, "Changed."), ...errors(400, 401, 404, 415) },
    }),
    delete: operation("Delete every version", {
      requestParams: { path: id },
      responses: {
        ...noContent,
        ...errors(401, 404),
        "409": json(ErrorBody, "Other tools of yours call it (their `uses` name it); the message names them."),
      },
    }),
  },
  "/api/tools/{id}/versions": {
    get: operation("Every version, oldest first", {
      requestParams: { path: id },
      responses: { "200": json(ToolVersions, "The versions."), ...errors(401, 404) },
    }),
  },
  "/api/tools/{id}/execute": {
    post: operation("Run the tool in the sandbox", {
      requestParams: { path: id, query: ToolVersionQuery },
      requestBody: { content: { "application/json": { schema: ToolExecution } } },
      responses: {
        "200": json(ToolRun, "The outcome; a failing tool is ok: false."),
        ...errors(400, 401, 404, 415),
      },
    }),
  },
  "/api/tools/{id}/test": {
    post: operation("Run the version's examples again", {
      requestParams: { path: id, query: ToolVersionQuery },
      responses: { "200": json(ToolTestRun, "Each example with its outcome."), ...errors(400, 401, 404) },
    }),
  },
  "/api/tools/{id}/examples": {
    post: operation("Keep an example on the latest version: a past call (keep as example) or one written out", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: NewToolExample } } },
      responses: {
        "201": json(Tool, "Kept: the version passed it."),
        "422": json(ToolRefused, "Not kept: the version returns something else, or the call had failed."),
        ...errors(400, 401, 404, 415),
      },
    }),
  },
  "/api/tools/{id}/executions": {
    get: operation("Recent calls, from chat and the API", {
      requestParams: { path: id, query: ToolExecutionsQuery },
      responses: {
        "200": json(Executions, "Newest first."),
        ...errors(400, 401, 404),
      },
    }),
  },
  "/api/tokens": {
    get: operation("Your API tokens (never the secret)", {
      responses: { "200": json(ApiTokens, "The tokens."), ...errors(401) },
    }),
    post: operation("Create an API token; the answer is the only time it is shown", {
      requestBody: { content: { "application/json": { schema: NewApiToken } } },
      responses: { "201": json(NewApiTokenAnswer, "Created."), ...errors(400, 401, 415) },
    }),
  },
  "/api/tokens/{id}": {
    delete: operation("Revoke a token", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/mcp-servers": {
    get: operation("The MCP servers your runs may use", {
      description:
        "The profiles file's that your default profile may use (`source: file`, read-only), those an admin connected " +
        "for everyone (`source: everyone`, read-only; one that has the name of a server of yours is left out, since " +
        "yours wins the name in your runs), and yours (`source: personal`). Header names only: no header value or " +
        "token is ever answered.",
      responses: { "200": json(McpServers, "The file's, everyone's and yours."), ...errors(401) },
    }),
    post: operation("Connect an MCP server over Streamable HTTP", {
      description:
        "Its headers and bearer token are stored sealed (AES-256-GCM). stdio servers (command, args, env) are " +
        "refused: the operator configures those in the profiles file. 409 for a name you, an admin's server for " +
        `everyone or the file already use, or past the limit of servers per person. ${CONNECTS_AS_ADDED}`,
      requestBody: { content: { "application/json": { schema: NewMcpServer } } },
      responses: {
        "201": json(McpServer, `Stored; ${CONNECTION}`),
        ...errors(400, 401, 413, 415),
        "409": json(
          ErrorBody,
          "The name is taken (yours, everyone's or the file's), or you have the most servers allowed.",
        ),
      },
    }),
  },
  "/api/mcp-servers/{id}": {
    delete: operation("Remove one of your MCP servers", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/mcp-servers/{id}/refresh": {
    post: operation("Connect to one of your MCP servers again and list its tools again", {
      description: REFRESH,
      requestParams: { path: id },
      responses: { "200": json(McpServer, CONNECTION), ...errors(401, 404), "409": UNREADABLE_HEADERS },
    }),
  },
  "/api/secrets": {
    get: operation("The secrets your tools may use", {
      description:
        "Yours (`source: personal`) and those an admin keeps for everyone (`source: everyone`, read-only; one " +
        "that has the name of one of yours is left out, since yours wins the name). Names, hosts and when each " +
        "was last used: never a value.",
      responses: { "200": json(Secrets, "Everyone's, then yours, by name."), ...errors(401) },
    }),
    post: operation("Keep a secret for your tools (an API key)", {
      description: SECRET_VALUE_RULES,
      requestBody: { content: { "application/json": { schema: NewSecret } } },
      responses: {
        "201": json(Secret, "Kept."),
        "200": json(Secret, "Replaced: a secret of yours had that name."),
        ...errors(400, 401, 413, 415),
        "409": json(ErrorBody, "You have the most secrets one person may keep."),
      },
    }),
  },
  "/api/secrets/{name}": {
    delete: operation("Remove one of your secrets", {
      description:
        "Tools that name it fail from then on, saying it is not set (unless an admin keeps one for everyone).",
      requestParams: { path: secretName },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/account": {
    get: operation("The signed-in account", {
      responses: { "200": json(Account, "The account."), ...errors(401, 404) },
    }),
    delete: operation("Delete the account and everything it owns", {
      description:
        "Conversations, tools and their calls, tokens, reviews, share links, sessions and passkeys. Send the " +
        "account's email as `confirm`; download GET /api/account/export first. 409 while one of its runs is going.",
      requestBody: { content: { "application/json": { schema: AccountDeletion } } },
      responses: { ...noContent, ...errors(400, 401, 404, 409, 415) },
    }),
  },
  "/api/account/export": {
    get: operation("Everything the account owns, as one JSON download", {
      responses: {
        "200": json(z.record(z.string(), z.unknown()), "format toolsmith.account.v1."),
        ...errors(401, 404),
      },
    }),
  },
  "/api/account/sessions": {
    get: operation("The account's signed-in browsers", {
      responses: { "200": json(AccountSessions, "Most recently used first."), ...errors(401, 404) },
    }),
  },
  "/api/account/sessions/{id}": {
    delete: operation("Sign a browser out (it is refused at its next request, on every instance)", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/auth/signout": {
    post: operation("Sign out this browser, or every browser of the account", {
      description: "The browser continues as a new anonymous identity.",
      requestBody: { content: { "application/json": { schema: SignOut } } },
      responses: { ...noContent, ...errors(400, 404, 415) },
    }),
  },
  "/api/auth/signin/oidc": {
    get: operation("Start single sign-on with the OpenID Connect provider (TOOLSMITH_OIDC_ISSUER)", {
      description:
        "Redirects to the provider with PKCE, state and nonce, after tying the step to this browser with a cookie. " +
        "`next` is the path to open once signed in.",
      requestParams: { query: z.object({ next: z.string().optional() }) },
      responses: {
        "303": { description: "To the provider, or to /signin?error=oidc_unavailable when it cannot be reached." },
        ...errors(404),
      },
    }),
  },
  "/api/auth/callback/oidc": {
    get: operation("Where the provider sends the browser back (register it as the redirect URI)", {
      description:
        "Exchanges the code (PKCE), checks state, nonce and the ID token, and signs in as the account of the " +
        "provider's subject, or of its verified email. Failures go to /signin?error=<why>.",
      requestParams: { query: z.object({ code: z.string().optional(), state: z.string().optional() }) },
      responses: { "303": { description: "Signed in, to `next`; or to /signin?error=…" }, ...errors(404) },
    }),
  },
  "/api/auth/email": {
    post: operation("Email a sign-in link (accounts on, SMTP_URL set)", {
      description:
        "Always 202 with the same answer, whether or not the address has an account or may have one, so that " +
        "nobody learns which addresses do. The link works once, for 15 minutes.",
      requestBody: { content: { "application/json": { schema: EmailLinkRequest } } },
      responses: {
        "202": json(EmailLinkSent, "Sent, if the address may sign in here."),
        ...errors(400, 404, 415, 429),
      },
    }),
  },
  "/api/auth/email/verify": {
    post: operation("Sign in with an email link's token", {
      description:
        "The link opens a page that asks to confirm, then posts its token here: a mail scanner that opens links " +
        "uses nothing up. Sets the session cookie; what this browser made anonymously becomes the account's.",
      requestBody: { content: { "application/json": { schema: EmailLinkUse } } },
      responses: { "200": json(SignedIn, "Signed in."), ...errors(400, 403, 404, 415, 429) },
    }),
  },
  "/api/mcp": {
    post: operation("The tool library as a Model Context Protocol server (Streamable HTTP, stateless)", {
      description:
        "Your library tools (latest versions, not deprecated) for MCP clients of revision 2026-07-28 and of the " +
        "2025 revisions: tools/list (paged by `nextCursor`), tools/call (the same call path as chat and " +
        "/api/tools/{id}/execute). Needs an API token (`Authorization: Bearer`); the cookie alone is 401. Host and " +
        "Origin must name TOOLSMITH_PUBLIC_URL or a loopback address, else 403.",
      requestBody: { content: { "application/json": { schema: JsonRpcMessage } } },
      responses: {
        "200": {
          description: "The JSON-RPC response, as JSON or as an event stream.",
          content: { "application/json": { schema: JsonRpcMessage }, "text/event-stream": { schema: z.string() } },
        },
        "202": { description: "A notification, accepted." },
        "400": json(
          z.union([ErrorBody, JsonRpcMessage]),
          "The body breaks the API's rules (not JSON, nested too deep), or is not a JSON-RPC message the server can take (a JSON-RPC error).",
        ),
        "403": json(ErrorBody, "Host or Origin is not this app's (DNS-rebinding protection)."),
        "406": json(JsonRpcMessage, "The client does not accept application/json and text/event-stream."),
        ...errors(401, 413, 415),
      },
    }),
  },
  // Passkeys (issue 39)
  "/api/auth/passkey/register/options": {
    post: operation("Options to add a passkey to the signed-in account", {
      responses: { "200": json(WebAuthnOptions, "For startRegistration."), ...errors(401, 404) },
    }),
  },
  "/api/auth/passkey/register": {
    post: operation("Add the passkey the browser created", {
      requestBody: { content: { "application/json": { schema: PasskeyRegistration } } },
      responses: { "201": json(Passkey, "Added."), ...errors(400, 401, 404, 409, 415) },
    }),
  },
  "/api/auth/passkey/signin/options": {
    post: operation("Options to sign in with a passkey (discoverable; no username)", {
      security: [],
      responses: { "200": json(WebAuthnOptions, "For startAuthentication."), ...errors(404, 429) },
    }),
  },
  "/api/auth/passkey/signin": {
    post: operation("Sign in with a passkey; sets the session cookie", {
      security: [],
      requestBody: { content: { "application/json": { schema: PasskeySignIn } } },
      responses: { "200": json(SignedInAccount, "Signed in."), ...errors(400, 404, 415, 429) },
    }),
  },
  "/api/account/passkeys": {
    get: operation("The signed-in account's passkeys", {
      responses: { "200": json(Passkeys, "Oldest first."), ...errors(401, 404) },
    }),
  },
  "/api/account/passkeys/{id}": {
    patch: operation("Rename a passkey", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: PasskeyRename } } },
      responses: { "200": json(Passkey, "Renamed."), ...errors(400, 401, 404, 415) },
    }),
    delete: operation("Remove a passkey; it no longer signs in", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/openapi.json": {
    get: operation("This document", { security: [], responses: { "200": { description: "OpenAPI 3.1." } } }),
  },
};

const WRITES: ReadonlySet<string> = new Set(["post", "put", "patch", "delete"]);

/**
 * The answers every route of a kind may give, whatever it does: an address that cannot be percent-decoded is 400
 * (server-runtime.mjs), a write from another site is refused (proxy.ts), a JSON body can be too large or not JSON
 * (lib/http/body.ts), a route that asks who is calling refuses a bad API token, any route answers 500 when the
 * server fails (lib/http/route.ts `route`), and 503 when the instance is full (server-runtime.mjs).
 */
function withCommonAnswers(method: string, operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const common: ErrorStatus[] = [
    400,
    ...(WRITES.has(method) ? ([403] as const) : []),
    ...(operation.requestBody ? ([413, 415] as const) : []),
    ...(operation.security?.length === 0 ? [] : ([401] as const)),
    500,
  ];
  return { ...operation, responses: { ...errors(...common), "503": AT_CAPACITY, ...operation.responses } };
}

const AT_CAPACITY = json(
  ErrorBody,
  "The instance serves as many requests as it can (TOOLSMITH_MAX_REQUESTS); send it again after Retry-After.",
);

const SEAT_ERROR_MEANINGS = {
  401: "No API token, or one that is not valid or was revoked.",
  404: "No such tool of yours.",
  409: "Other tools of yours call it (their `uses` name it); `detail` names them.",
  413: "Too large.",
  415: "The body is not declared as JSON.",
  422: "The request failed validation (each problem in `detail`, as FastAPI lists them), or no written tool passed its checks.",
  429: "Too many tools written in a minute; see Retry-After.",
  500: "The server failed; the error was logged.",
  502: "The model server failed; `detail` names how.",
  503: "No model is configured.",
} as const satisfies Record<number, string>;
const seatErrors = (...statuses: (keyof typeof SEAT_ERROR_MEANINGS)[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), json(SeatError, SEAT_ERROR_MEANINGS[status])]));
/** A SEAT route: tagged SEAT, its errors in FastAPI's `{ detail }`, a token needed unless `security` says not. */
const seatOperation = (summary: string, spec: Omit<ZodOpenApiOperationObject, "summary">) =>
  operation(summary, {
    tags: ["SEAT"],
    security: [{ bearer: [] }],
    ...spec,
    responses: {
      ...seatErrors(...(spec.security?.length === 0 ? ([500] as const) : ([401, 500] as const))),
      ...spec.responses,
    },
  });
const seatBody = (schema: z.ZodType) => ({ content: { "application/json": { schema } } });

/** SEAT's API at its own base URL (lib/seat): SEAT's paths under /seat, its shapes, FastAPI's errors. */
const seatRoutes: ZodOpenApiPathsObject = {
  "/seat": {
    get: seatOperation("SEAT's functions (create, list, detail, execute)", {
      security: [],
      responses: { "200": json(SeatIndex, "The functions.") },
    }),
  },
  "/seat/health": {
    get: seatOperation("Liveness check", { security: [], responses: { "200": json(SeatHealth, "Up.") } }),
  },
  "/seat/tools": {
    get: seatOperation("Every tool of yours, by name (a bare array)", {
      requestParams: { query: SeatListQuery },
      responses: { "200": json(SeatTools, "The tools."), ...seatErrors(422) },
    }),
    post: seatOperation("Generate, check, test and register a tool from a description", {
      description:
        "The tool writer of POST /api/tools/generate: the model writes the tool with examples (Python unless " +
        "`language` says otherwise), its code is checked and its examples run, and a failure goes back to the model " +
        "to repair. 422 when no attempt passed (nothing is stored); POST /api/tools/generate streams every attempt.",
      requestBody: seatBody(SeatNewTool),
      responses: { "201": json(SeatTool, "Created."), ...seatErrors(413, 415, 422, 429, 502, 503) },
    }),
  },
  "/seat/tools/search": {
    get: seatOperation("Tools whose name or description contains q, ignoring case (a bare array)", {
      requestParams: { query: SeatSearchQuery },
      responses: { "200": json(SeatTools, "Every match, by name."), ...seatErrors(422) },
    }),
  },
  "/seat/tools/{id}": {
    get: seatOperation("A tool with its statistics", {
      requestParams: { path: id },
      responses: { "200": json(SeatTool, "The tool."), ...seatErrors(404) },
    }),
    delete: seatOperation("Remove a tool (every version)", {
      requestParams: { path: id },
      responses: { ...noContent, ...seatErrors(404, 409) },
    }),
  },
  "/seat/tools/{id}/execute": {
    post: seatOperation("Execute a tool with input_data", {
      description:
        "The same call path as POST /api/tools/{id}/execute. `output` is the value as text (Python's str()); input " +
        "that does not match the tool's input_schema is `success: false`, as a failing call.",
      requestParams: { path: id },
      requestBody: seatBody(SeatExecution),
      responses: {
        "200": json(SeatRun, "The outcome; a failing tool is success: false."),
        ...seatErrors(404, 413, 415, 422),
      },
    }),
  },
  // Accounts: the admin's view (issue 39); 404 for anyone who is not an admin.
  "/api/admin/accounts": {
    get: operation("Admins: every account, with the agent profiles it may use", {
      responses: { "200": json(AdminAccounts, "The accounts, oldest first."), ...errors(401, 404) },
    }),
  },
  "/api/admin/mcp-servers": {
    get: operation("Admins: the MCP servers connected for everyone", {
      description:
        "Offered to every person's runs under every profile that takes servers connected through the API " +
        "(`personal_mcp_servers`, true by default), beside the profiles file's. Header names only.",
      responses: { "200": json(McpServers, "Everyone's servers, by name."), ...errors(401, 404) },
    }),
    post: operation("Admins: connect an MCP server for everyone over Streamable HTTP", {
      description:
        "As a person's server: its headers and bearer token stored sealed, never answered; on a private address " +
        "only where TOOLSMITH_MCP_PRIVATE_HOSTS lists it. 409 for a name the profiles file or another server for " +
        "everyone has, or past the limit; a person who already has a server of that name keeps using their own. " +
        CONNECTS_AS_ADDED,
      requestBody: { content: { "application/json": { schema: NewMcpServer } } },
      responses: {
        "201": json(McpServer, `Stored for everyone; ${CONNECTION}`),
        ...errors(400, 401, 404, 413, 415),
        "409": json(ErrorBody, "The name is taken (everyone's or the file's), or there are the most servers allowed."),
      },
    }),
  },
  "/api/admin/mcp-servers/{id}": {
    delete: operation("Admins: remove an MCP server for everyone", {
      description: "No run is offered it from the next one on.",
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/admin/mcp-servers/{id}/refresh": {
    post: operation("Admins: connect to an MCP server for everyone again and list its tools again", {
      description: REFRESH,
      requestParams: { path: id },
      responses: { "200": json(McpServer, CONNECTION), ...errors(401, 404), "409": UNREADABLE_HEADERS },
    }),
  },
  "/api/admin/secrets": {
    get: operation("Admins: the secrets kept for everyone", {
      description: "Every person's tools may use them; a person's own secret of the same name wins. Never a value.",
      responses: { "200": json(Secrets, "Everyone's secrets, by name."), ...errors(401, 404) },
    }),
    post: operation("Admins: keep a secret for everyone's tools", {
      description: SECRET_VALUE_RULES,
      requestBody: { content: { "application/json": { schema: NewSecret } } },
      responses: {
        "201": json(Secret, "Kept for everyone."),
        "200": json(Secret, "Replaced: a secret for everyone had that name."),
        ...errors(400, 401, 404, 413, 415),
        "409": json(ErrorBody, "There are the most secrets for everyone there may be."),
      },
    }),
  },
  "/api/admin/secrets/{name}": {
    delete: operation("Admins: remove a secret kept for everyone", {
      requestParams: { path: secretName },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/admin/accounts/{id}/profiles": {
    put: operation("Admins: set the agent profiles an account may use (null: every one)", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: AccountProfilesBody } } },
      responses: { "200": json(AdminAccount, "The account."), ...errors(400, 401, 404, 415) },
    }),
  },
};

/** Every route, /api's and SEAT's: its parameters, body and answers by status. */
export const apiRoutes: ZodOpenApiPathsObject = {
  ...Object.fromEntries(
    Object.entries(routes).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]: [string, ZodOpenApiOperationObject]) => [
          method,
          withCommonAnswers(method, operation),
        ]),
      ),
    ]),
  ),
  ...seatRoutes,
};
