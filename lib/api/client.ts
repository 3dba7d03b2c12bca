import { EventSourceParserStream } from "eventsource-parser/stream";
import type { Annotation, ToolExample, Verdict } from "@/lib/contract/events";
import type { GenerationEvent } from "@/lib/contract/generation";
import type { SegmentStart } from "@/lib/contract/log";
import type { NewMcpServer, NewSecret, ToolDescription } from "@/lib/contract/requests";
import type { ToolLanguage } from "@/lib/sandbox/languages";
import type {
  Account,
  AccountSession,
  AdminAccount,
  ApiToken,
  ApprovalTaken,
  AuditEntry,
  Conversation,
  ConversationFile,
  ConversationPage,
  Execution,
  Fork,
  McpServer,
  NewApiTokenAnswer,
  Passkey,
  Rerun,
  Secret,
  ShareLink,
  Tool,
  ToolPage,
  ToolRun,
  ToolTestRun,
} from "@/lib/contract/responses";

export type {
  McpServer,
  Secret,
  Account,
  AccountSession,
  ApiToken,
  AuditEntry,
  Passkey,
  Conversation,
  ConversationFile,
  ConversationPage,
  Execution,
  Tool,
  ToolRun,
  ToolTestRun,
};

/**
 * The browser's client of the app's API: every fetch the UI makes goes through here, so components neither build
 * URLs nor read error bodies. A failed request throws a FailedRequest with the server's message.
 */
export class FailedRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Where a conversation's events come from: its own routes, or a share link's. */
export type ConversationSource = { conversationId: string } | { shareToken: string };

const base = (source: ConversationSource) =>
  "shareToken" in source
    ? `/api/share/${encodeURIComponent(source.shareToken)}`
    : `/api/conversations/${encodeURIComponent(source.conversationId)}`;

/** The server's `{ error: { message } }`, or a sentence about the status when the body says nothing. */
export async function errorFrom(response: Response): Promise<FailedRequest> {
  const body = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
  const message =
    typeof body?.error?.message === "string"
      ? body.error.message
      : `The server answered ${response.status} ${response.statusText}.`.trim();
  return new FailedRequest(response.status, message);
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(path, { cache: "no-store", ...init });
  if (!response.ok) throw await errorFrom(response);
  return response;
}

const jsonBody = (body: unknown): RequestInit => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const json = async <T>(path: string, init?: RequestInit): Promise<T> => (await call(path, init)).json() as Promise<T>;

/** What POST /api/tools/generate takes: the description, and the language to write in (absent: JavaScript). */
export type GenerationRequest = ToolDescription & { language?: ToolLanguage };

/** Each event of writing a tool from a description, as it streams; aborting `signal` stops the writing. */
async function* generateTool(request: GenerationRequest, signal: AbortSignal): AsyncGenerator<GenerationEvent> {
  const response = await call("/api/tools/generate", { method: "POST", ...jsonBody(request), signal });
  const reader = response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield JSON.parse(value.data) as GenerationEvent;
    }
  } finally {
    // A reader that stops early (or an abort) leaves nothing open.
    void reader.cancel().catch(() => {});
  }
}

/**
 * Upload files into a conversation (multipart, each a part named `file`), telling `onProgress` the share of the body
 * sent so far (0 to 1): XMLHttpRequest, since fetch reports no upload progress. Aborting `signal` stops the upload and
 * rejects with an AbortError; a refusal rejects with a FailedRequest carrying the server's sentence.
 */
function uploadFiles(
  conversationId: string,
  files: File[],
  { onProgress, signal }: { onProgress?: (fraction: number) => void; signal?: AbortSignal } = {},
): Promise<ConversationFile[]> {
  return new Promise((resolve, reject) => {
    const aborted = () => new DOMException("The upload was stopped.", "AbortError");
    if (signal?.aborted) return reject(aborted());
    const body = new FormData();
    for (const file of files) body.append("file", file);
    const request = new XMLHttpRequest();
    request.open("POST", `/api/conversations/${encodeURIComponent(conversationId)}/files`);
    request.responseType = "text";
    request.upload.onprogress = (event) => event.lengthComputable && onProgress?.(event.loaded / event.total);
    request.onload = () => {
      const response = new Response(request.responseText, { status: request.status, statusText: request.statusText });
      if (!response.ok) return void errorFrom(response).then(reject);
      response.json().then((answer: { files: ConversationFile[] }) => resolve(answer.files), reject);
    };
    request.onerror = () => reject(new FailedRequest(0, "The upload failed: the server could not be reached."));
    request.onabort = () => reject(aborted());
    signal?.addEventListener("abort", () => request.abort(), { once: true });
    request.send(body);
  });
}

/**
 * The first `maxBytes` of a file's bytes as text (UTF-8), and whether that was all of it: the rest is never
 * downloaded, since the stream is cancelled once enough has come.
 */
async function readFileStart(
  url: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<{ text: string; complete: boolean }> {
  const reader = (await call(url, { signal })).body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), complete: true };
      const part = value.subarray(0, maxBytes - bytes);
      bytes += part.length;
      // Streaming: a character cut at the end is left out rather than turned into a replacement character.
      text += decoder.decode(part, { stream: true });
    }
    return { text, complete: false };
  } finally {
    void reader.cancel().catch(() => {});
  }
}

const mcpServersPath = (forEveryone: boolean) => (forEveryone ? "/api/admin/mcp-servers" : "/api/mcp-servers");
const secretsPath = (forEveryone: boolean) => (forEveryone ? "/api/admin/secrets" : "/api/secrets");

export const api = {
  listConversations: (cursor?: string, thumbsDown = false) => {
    const query = new URLSearchParams({ ...(cursor && { cursor }), ...(thumbsDown && { verdict: "down" }) });
    return json<ConversationPage>(`/api/conversations${query.size > 0 ? `?${query}` : ""}`);
  },
  createConversation: (profile?: string) =>
    json<Conversation>("/api/conversations", { method: "POST", ...(profile ? jsonBody({ profile }) : {}) }),
  setProfile: (id: string, profile: string) =>
    json<Conversation>(`/api/conversations/${encodeURIComponent(id)}`, {
      method: "PATCH",
      ...jsonBody({ profile }),
    }),
  renameConversation: (id: string, title: string) =>
    json<Conversation>(`/api/conversations/${encodeURIComponent(id)}`, {
      method: "PATCH",
      ...jsonBody({ title }),
    }),
  deleteConversation: async (id: string) =>
    void (await call(`/api/conversations/${encodeURIComponent(id)}`, { method: "DELETE" })),
  /**
   * Starts a run, the message attaching `files` (ids of the conversation's uploads), planning first or not (`plan`;
   * absent: as the profile says); the answer streams its events
   * (read it with lib/api/event-stream.ts).
   */
  sendMessage: (id: string, content: string, files: string[] = [], plan?: boolean) =>
    call(`/api/conversations/${encodeURIComponent(id)}/messages`, {
      method: "POST",
      ...jsonBody({ content, ...(files.length > 0 && { files }), ...(plan !== undefined && { plan }) }),
    }),
  uploadFiles,
  readFileStart,
  deleteFile: async (id: string) => void (await call(`/api/files/${encodeURIComponent(id)}`, { method: "DELETE" })),
  cancelRun: async (id: string) =>
    void (await call(`/api/conversations/${encodeURIComponent(id)}/cancel`, { method: "POST" })),
  /**
   * Stored events after `after`, then the live run, then (watching) whatever the log gets next; `segment`: the last
   * run_started or run_resumed seen (see resumePoint).
   */
  events: (source: ConversationSource, after: number, segment: SegmentStart, signal?: AbortSignal) => {
    const query = new URLSearchParams({
      watch: "1",
      after: String(after),
      segment: String(segment.id),
      ...(segment.token ? { segmentToken: segment.token } : {}),
    });
    return call(`${base(source)}/events?${query}`, { signal });
  },
  exportUrl: (source: ConversationSource, format: "md" | "json") => `${base(source)}/export?format=${format}`,
  /** Reviews, by the owner or through a share link: the log streams them to every viewer (lib/review/). */
  annotate: (source: ConversationSource, body: { eventId: number; label: string; note: string }) =>
    json<Annotation>(`${base(source)}/annotations`, { method: "POST", ...jsonBody(body) }),
  deleteAnnotation: async (source: ConversationSource, annotationId: string) =>
    void (await call(`${base(source)}/annotations/${encodeURIComponent(annotationId)}`, { method: "DELETE" })),
  giveVerdict: (source: ConversationSource, body: { runId: string; verdict: "up" | "down"; note?: string }) =>
    json<Verdict>(`${base(source)}/verdicts`, { method: "POST", ...jsonBody(body) }),
  displayName: () => json<{ name: string }>("/api/display-name"),
  setDisplayName: (name: string) =>
    json<{ name: string }>("/api/display-name", { method: "PUT", ...jsonBody({ name }) }),
  /** One run as OTLP JSON (the owner's only). */
  runOtlpUrl: (conversationId: string, runId: string) =>
    `/api/conversations/${encodeURIComponent(conversationId)}/runs/${encodeURIComponent(runId)}/otlp`,
  /** The conversation's share link, or null when it has none. */
  shareLink: async (id: string) => {
    try {
      return await json<ShareLink>(`/api/conversations/${encodeURIComponent(id)}/share`);
    } catch (error) {
      if (error instanceof FailedRequest && error.status === 404) return null;
      throw error;
    }
  },
  createShareLink: (id: string, visibility: ShareLink["visibility"] = "anyone") =>
    json<ShareLink>(`/api/conversations/${encodeURIComponent(id)}/share`, {
      method: "POST",
      ...jsonBody({ visibility }),
    }),
  revokeShareLink: async (id: string) =>
    void (await call(`/api/conversations/${encodeURIComponent(id)}/share`, { method: "DELETE" })),
  listTools: (query: { q?: string; status?: string; scope?: string; cursor?: string }) => {
    const params = new URLSearchParams(
      Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
    );
    return json<ToolPage>(`/api/tools?${params}`);
  },
  tool: (id: string) => json<Tool>(`/api/tools/${encodeURIComponent(id)}`),
  changeTool: (
    id: string,
    change: { scope?: "conversation" | "library"; status?: Tool["status"]; description?: string },
  ) => json<Tool>(`/api/tools/${encodeURIComponent(id)}`, { method: "PATCH", ...jsonBody(change) }),
  deleteTool: async (id: string) => void (await call(`/api/tools/${encodeURIComponent(id)}`, { method: "DELETE" })),
  toolExecutions: (id: string) => json<{ executions: Execution[] }>(`/api/tools/${encodeURIComponent(id)}/executions`),
  runTool: (id: string, input: Record<string, unknown>) =>
    json<ToolRun>(`/api/tools/${encodeURIComponent(id)}/execute`, { method: "POST", ...jsonBody({ input }) }),
  generateTool,
  /** Runs a version's examples again: the one shown, so that they match what the page lists. */
  testTool: (id: string, version: number) =>
    json<ToolTestRun>(`/api/tools/${encodeURIComponent(id)}/test?version=${version}`, { method: "POST" }),
  /**
   * Keeps an example on the latest version: a past call's, or one written out; refused (422) when it fails. With
   * `failing`, a call that went wrong and what it should have given: refused when the version passes it.
   */
  keepExample: (id: string, example: { executionId: string } | ToolExample | (ToolExample & { failing: true })) =>
    json<Tool>(`/api/tools/${encodeURIComponent(id)}/examples`, { method: "POST", ...jsonBody(example) }),
  audit: (filters: Record<string, string>, cursor?: string) => {
    const params = new URLSearchParams(
      Object.entries({ ...filters, ...(cursor ? { cursor } : {}) }).filter(([, value]) => value),
    );
    return json<{ entries: AuditEntry[]; nextCursor: string | null }>(`/api/audit?${params}`);
  },
  /** Admins: the agent profiles an account may use (null: every one). */
  setAccountProfiles: (id: string, profiles: string[] | null) =>
    json<AdminAccount>(`/api/admin/accounts/${encodeURIComponent(id)}/profiles`, {
      method: "PUT",
      ...jsonBody({ profiles }),
    }),
  auditExportUrl: (filters: Record<string, string>, format: "csv" | "jsonl") =>
    `/api/audit/export?${new URLSearchParams(Object.entries({ ...filters, format }).filter(([, value]) => value))}`,
  answerApproval: (conversationId: string, approvalId: string, approved: boolean) =>
    json<ApprovalTaken>(
      `/api/conversations/${encodeURIComponent(conversationId)}/approvals/${encodeURIComponent(approvalId)}`,
      { method: "POST", ...jsonBody({ approved }) },
    ),
  listTokens: () => json<ApiToken[]>("/api/tokens"),
  createToken: (name: string) => json<NewApiTokenAnswer>("/api/tokens", { method: "POST", ...jsonBody({ name }) }),
  revokeToken: async (id: string) => void (await call(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" })),
  listMcpServers: () => json<McpServer[]>("/api/mcp-servers"),
  /** A person's own server, or with `forEveryone` an admin's for everyone. */
  addMcpServer: (server: NewMcpServer, forEveryone = false) =>
    json<McpServer>(mcpServersPath(forEveryone), { method: "POST", ...jsonBody(server) }),
  /** Connects to the server again and lists its tools: the server with its status then. */
  refreshMcpServer: (id: string, forEveryone = false) =>
    json<McpServer>(`${mcpServersPath(forEveryone)}/${encodeURIComponent(id)}/refresh`, { method: "POST" }),
  removeMcpServer: async (id: string, forEveryone = false) =>
    void (await call(`${mcpServersPath(forEveryone)}/${encodeURIComponent(id)}`, { method: "DELETE" })),
  keepSecret: (secret: NewSecret, forEveryone = false) =>
    json<Secret>(secretsPath(forEveryone), { method: "POST", ...jsonBody(secret) }),
  removeSecret: async (name: string, forEveryone = false) =>
    void (await call(`${secretsPath(forEveryone)}/${encodeURIComponent(name)}`, { method: "DELETE" })),
  signOut: async (everywhere = false) =>
    void (await call("/api/auth/signout", { method: "POST", ...jsonBody({ everywhere }) })),
  revokeSession: async (id: string) =>
    void (await call(`/api/account/sessions/${encodeURIComponent(id)}`, { method: "DELETE" })),
  deleteAccount: async (confirm: string) =>
    void (await call("/api/account", { method: "DELETE", ...jsonBody({ confirm }) })),
  requestSignInLink: (email: string, next: string) =>
    json<{ message: string }>("/api/auth/email", { method: "POST", ...jsonBody({ email, next }) }),
  signInWithLink: (token: string) =>
    json<{ next: string }>("/api/auth/email/verify", { method: "POST", ...jsonBody({ token }) }),
  forkShared: (token: string) => json<Fork>(`/api/share/${encodeURIComponent(token)}/fork`, { method: "POST" }),
  /** A copy of the conversation up to the end of the step of this step_started or tool_call event, the viewer's. */
  continueFrom: (source: ConversationSource, eventId: number) =>
    json<Fork>(`${base(source)}/fork`, { method: "POST", ...jsonBody({ eventId }) }),
  /** The run sent again in a fork, planning first or not: the answer names the compare page of the two. */
  rerun: (conversationId: string, runId: string, plan: boolean) =>
    json<Rerun>(`/api/conversations/${encodeURIComponent(conversationId)}/runs/${encodeURIComponent(runId)}/rerun`, {
      method: "POST",
      ...jsonBody({ plan }),
    }),
  // Passkeys (issue 39): options and answers are WebAuthn JSON, passed to and from @simplewebauthn/browser.
  passkeySignInOptions: () => json<Record<string, unknown>>("/api/auth/passkey/signin/options", { method: "POST" }),
  passkeys: () => json<Passkey[]>("/api/account/passkeys"),
  passkeyRegisterOptions: () => json<Record<string, unknown>>("/api/auth/passkey/register/options", { method: "POST" }),
  registerPasskey: (response: unknown, name: string) =>
    json<Passkey>("/api/auth/passkey/register", { method: "POST", ...jsonBody({ response, name }) }),
  removePasskey: async (id: string) =>
    void (await call(`/api/account/passkeys/${encodeURIComponent(id)}`, { method: "DELETE" })),
  passkeySignIn: (response: unknown) =>
    json<{ id: string; email: string }>("/api/auth/passkey/signin", { method: "POST", ...jsonBody({ response }) }),
};

/** A message for the person, whatever was thrown. */
export const problemText = (error: unknown) => (error instanceof Error ? error.message : String(error));
