import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { SEGMENT_TOKEN } from "@/lib/contract/events";
import {
  ApprovalAnswer,
  AuditExportQuery,
  AuditQuery,
  ConversationChange,
  NewApiToken,
  NewConversation,
  NewMessage,
  ToolChange,
  ToolDefinition,
  ToolExecution,
  ToolExecutionsQuery,
  ToolListQuery,
  ToolSearchQuery,
  ToolVersionQuery,
} from "@/lib/contract/requests";

/**
 * The OpenAPI 3.1 description of every /api route, served at /api/openapi.json and rendered at /docs. Request
 * schemas are the ones the routes validate with (contract.ts); the answers are described here.
 */
const ErrorBody = z
  .object({ error: z.object({ code: z.string(), message: z.string().describe("What went wrong, for a person.") }) })
  .meta({ id: "Error" });
const Stats = z
  .object({
    executions: z.number().int(),
    successes: z.number().int(),
    failures: z.number().int(),
    cancelled: z.number().int(),
    meanDurationMs: z.number().nullable(),
    lastDurationMs: z.number().nullable(),
    lastUsedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "ToolStats" });
const Tool = z
  .object({
    id: z.string().describe("The tool's id; every version shares it."),
    name: z.string(),
    description: z.string(),
    parameters_schema: z.record(z.string(), z.unknown()),
    code: z.string(),
    version: z.number().int(),
    versionId: z.string(),
    scope: z.enum(["conversation", "library"]),
    status: z.enum(["active", "deprecated"]),
    conversationId: z.string().nullable().describe("Where it was made; null through the API."),
    createdAt: z.iso.datetime(),
    stats: Stats.optional(),
  })
  .meta({ id: "Tool" });
const Violation = z.object({ message: z.string(), line: z.number().int(), column: z.number().int() });
const Conversation = z
  .object({ id: z.string(), title: z.string(), createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() })
  .meta({ id: "Conversation" });
const Token = z
  .object({ id: z.string(), name: z.string(), createdAt: z.iso.datetime(), lastUsedAt: z.iso.datetime().nullable() })
  .meta({ id: "ApiToken" });
const ShareLink = z.object({ token: z.string(), url: z.url() });

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
  segmentToken: z.string().regex(SEGMENT_TOKEN).optional().meta({
    description:
      "With `segment` (then at most `after`): that event's `segment` field, and the event at `segment` is checked too. Two segments can begin at the same id (one shown but never stored); the token tells them apart.",
  }),
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), json(ErrorBody, ERROR_MEANINGS[status])]));
const ERROR_MEANINGS: Record<number, string> = {
  400: "The request is malformed; the message says how.",
  401: "The API token is not valid or was revoked.",
  403: "A browser write from another site.",
  404: "Not found, or not yours.",
  409: "A run of the conversation is active.",
  413: "Too large.",
  415: "The body is not declared as JSON.",
  422: "The tool's code or schema was refused.",
  429: "Too many requests; see Retry-After.",
  503: "Not confirmed in time; send it again (see Retry-After).",
};
const id = z.object({ id: z.string() });
const token = z.object({ token: z.string() });
const noContent = { "204": { description: "Done; no body." } };

function operation(summary: string, spec: Omit<ZodOpenApiOperationObject, "summary">): ZodOpenApiOperationObject {
  return { summary, ...spec };
}

const paths: ZodOpenApiPathsObject = {
  "/api/health": {
    get: operation("Liveness and sandbox load", {
      security: [],
      responses: {
        "200": json(z.object({ status: z.literal("ok"), sandbox: z.record(z.string(), z.unknown()) }), "Up."),
      },
    }),
  },
  "/api/conversations": {
    get: operation("Your conversations, newest first", {
      responses: { "200": json(z.array(Conversation), "The list."), ...errors(401) },
    }),
    post: operation("Start a conversation", {
      requestBody: { content: { "application/json": { schema: NewConversation } } },
      responses: { "201": json(Conversation, "Created."), ...errors(400, 401, 415, 429) },
    }),
  },
  "/api/conversations/{id}": {
    get: operation("A conversation with its messages, events, tools and runs", {
      requestParams: { path: id },
      responses: { "200": json(z.record(z.string(), z.unknown()), "The conversation."), ...errors(404) },
    }),
    patch: operation("Rename", {
      requestParams: { path: id },
      requestBody: { content: { "application/json": { schema: ConversationChange } } },
      responses: { "200": json(Conversation, "Renamed."), ...errors(400, 404, 415) },
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
      responses: { "200": eventStream, ...errors(400, 404, 409, 413, 415, 429) },
    }),
  },
  "/api/conversations/{id}/events": {
    get: operation("Replay the stored events after Last-Event-ID (or ?after=N), then follow the live run", {
      requestParams: { path: id, query: resumeQuery },
      responses: { "200": eventStream, ...errors(400, 404) },
    }),
  },
  "/api/conversations/{id}/cancel": {
    post: operation("Stop the active run", {
      requestParams: { path: id },
      responses: {
        "202": json(z.object({ runId: z.string(), status: z.literal("cancelling") }), "Stopping."),
        ...errors(404, 409),
      },
    }),
  },
  "/api/conversations/{id}/approvals/{approvalId}": {
    post: operation("Approve or deny a tool call waiting for approval", {
      requestParams: { path: z.object({ id: z.string(), approvalId: z.string() }) },
      requestBody: { content: { "application/json": { schema: ApprovalAnswer } } },
      responses: {
        "200": json(
          z.object({ approvalId: z.string(), approved: z.boolean() }),
          "Answered, or the same answer was taken before; the run goes on.",
        ),
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
      responses: {
        "200": json(ShareLink, "The existing link."),
        "201": json(ShareLink, "A new link."),
        ...errors(404),
      },
    }),
    delete: operation("Revoke the link", { requestParams: { path: id }, responses: { ...noContent, ...errors(404) } }),
  },
  "/api/conversations/{id}/export": {
    get: operation("Download as JSON or Markdown", {
      requestParams: { path: id, query: z.object({ format: z.enum(["json", "md"]).optional() }) },
      responses: { "200": { description: "The file." }, ...errors(400, 404) },
    }),
  },
  "/api/shares": {
    get: operation("Your share links", {
      responses: { "200": json(z.array(z.record(z.string(), z.unknown())), "The links."), ...errors(401) },
    }),
  },
  "/api/share/{token}": {
    get: operation("A shared conversation, read-only", {
      security: [],
      requestParams: { path: token },
      responses: { "200": json(z.record(z.string(), z.unknown()), "The conversation."), ...errors(404) },
    }),
  },
  "/api/share/{token}/events": {
    get: operation("A shared conversation's events, live; resumed as the conversation's own", {
      security: [],
      requestParams: { path: token, query: resumeQuery },
      responses: { "200": eventStream, ...errors(400, 404) },
    }),
  },
  "/api/share/{token}/export": {
    get: operation("Download a shared conversation", {
      security: [],
      requestParams: { path: token },
      responses: { "200": { description: "The file." }, ...errors(404) },
    }),
  },
  "/api/share/{token}/fork": {
    post: operation("Continue a shared conversation in your chats", {
      requestParams: { path: token },
      responses: {
        "201": json(z.object({ id: z.string(), title: z.string(), url: z.string() }), "The copy."),
        ...errors(404, 409, 429),
      },
    }),
  },
  "/api/audit": {
    get: operation("Your audit log: every tool call with the profile's decision, newest first", {
      requestParams: { query: AuditQuery },
      responses: {
        "200": json(
          z.object({ entries: z.array(z.record(z.string(), z.unknown())), nextCursor: z.string().nullable() }),
          "A page.",
        ),
        ...errors(400, 401),
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
        ...errors(400, 401),
      },
    }),
  },
  "/api/profiles": {
    get: operation("The agent profiles and their tools", {
      responses: {
        "200": json(
          z.object({ profiles: z.array(z.record(z.string(), z.unknown())), defaultProfile: z.string() }),
          "The profiles.",
        ),
        ...errors(401),
      },
    }),
  },
  "/api/tools": {
    get: operation("Your tools (latest versions), by name, a page at a time", {
      requestParams: { query: ToolListQuery },
      responses: {
        "200": json(z.object({ tools: z.array(Tool), nextCursor: z.string().nullable() }), "A page."),
        ...errors(400, 401),
      },
    }),
    post: operation("Create a library tool (or a new version of one with that name)", {
      requestBody: { content: { "application/json": { schema: ToolDefinition } } },
      responses: {
        "201": json(Tool, "Created."),
        "422": json(
          ErrorBody.extend({ violations: z.array(Violation).optional() }),
          "Refused by the code policy or the sandbox.",
        ),
        ...errors(400, 401, 415),
      },
    }),
  },
  "/api/tools/search": {
    get: operation("Search your tools by name and description", {
      requestParams: { query: ToolSearchQuery },
      responses: { "200": json(z.object({ tools: z.array(Tool) }), "Matches."), ...errors(400, 401) },
    }),
  },
  "/api/tools/stats": {
    get: operation("Totals over your tools and their calls", {
      responses: {
        "200": json(
          z.object({
            tools: z.number(),
            active: z.number(),
            deprecated: z.number(),
            library: z.number(),
            conversation: z.number(),
            executions: z.number(),
            successes: z.number(),
            failures: z.number(),
            cancelled: z.number(),
            successRate: z.number().nullable(),
            meanDurationMs: z.number().nullable(),
          }),
          "The totals.",
        ),
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
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/tools/{id}/versions": {
    get: operation("Every version, oldest first", {
      requestParams: { path: id },
      responses: { "200": json(z.object({ versions: z.array(Tool) }), "The versions."), ...errors(401, 404) },
    }),
  },
  "/api/tools/{id}/execute": {
    post: operation("Run the tool in the sandbox", {
      requestParams: { path: id, query: ToolVersionQuery },
      requestBody: { content: { "application/json": { schema: ToolExecution } } },
      responses: {
        "200": json(
          z.object({
            success: z.boolean(),
            output: z.unknown(),
            error: z.string().nullable(),
            truncated: z.boolean(),
            executionTime: z.number().describe("Seconds."),
          }),
          "The outcome; a failing tool is success: false.",
        ),
        ...errors(400, 401, 404, 415),
      },
    }),
  },
  "/api/tools/{id}/executions": {
    get: operation("Recent calls, from chat and the API", {
      requestParams: { path: id, query: ToolExecutionsQuery },
      responses: {
        "200": json(z.object({ executions: z.array(z.record(z.string(), z.unknown())) }), "Newest first."),
        ...errors(401, 404),
      },
    }),
  },
  "/api/tokens": {
    get: operation("Your API tokens (never the secret)", {
      responses: { "200": json(z.array(Token), "The tokens."), ...errors(401) },
    }),
    post: operation("Create an API token; the answer is the only time it is shown", {
      requestBody: { content: { "application/json": { schema: NewApiToken } } },
      responses: { "201": json(Token.extend({ token: z.string() }), "Created."), ...errors(400, 401, 415) },
    }),
  },
  "/api/tokens/{id}": {
    delete: operation("Revoke a token", {
      requestParams: { path: id },
      responses: { ...noContent, ...errors(401, 404) },
    }),
  },
  "/api/openapi.json": {
    get: operation("This document", { security: [], responses: { "200": { description: "OpenAPI 3.1." } } }),
  },
};

export const openApiDocument = createDocument({
  openapi: "3.1.0",
  info: {
    title: "Toolsmith API",
    version: "1.0.0",
    description:
      "Conversations with an agent that builds its own tools, and the library of those tools. Browsers authenticate with their identity cookie; scripts with `Authorization: Bearer <token>` (create one at /settings).",
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      cookie: { type: "apiKey", in: "cookie", name: "toolsmith_id" },
    },
  },
  security: [{ bearer: [] }, { cookie: [] }],
  paths,
});
