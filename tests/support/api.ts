import { expect } from "vitest";
import { seedSignedIn } from "./accounts";
import { readSse, type SseMessage } from "./sse";

/** A client of the HTTP API with its own identity: it keeps the cookie the server gives it, as a browser does. */
export class Api {
  cookie: string | undefined;
  /** The other cookies the server set (a session, a sign-in step), by name, kept and cleared as a browser does. */
  readonly jar = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    // A browser has its cookie from a page before it writes anything (the API refuses a write without credentials).
    const write = init.method !== undefined && !["GET", "HEAD"].includes(init.method.toUpperCase());
    if (write && !this.cookie && !this.session && !headers.has("authorization")) await this.identity();
    const sent = [this.cookie, ...[...this.jar].map(([name, value]) => `${name}=${value}`)].filter(Boolean).join("; ");
    if (sent && !headers.has("cookie")) headers.set("cookie", sent);
    const response = await fetch(`${this.baseUrl}${path}`, { ...init, headers });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(name.length + 1);
      if (/^(__Host-)?toolsmith_id$/.test(name)) this.cookie = pair;
      else if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return response;
  }

  /** The session cookie ("toolsmith_session=…") once signed in, or undefined. */
  get session(): string | undefined {
    const value = this.jar.get("toolsmith_session");
    return value === undefined ? undefined : `toolsmith_session=${value}`;
  }

  set session(cookie: string | undefined) {
    if (cookie === undefined) this.jar.delete("toolsmith_session");
    else this.jar.set("toolsmith_session", cookie.slice(cookie.indexOf("=") + 1));
  }

  /** The identity cookie value, e.g. to hand to a browser context. */
  async identity(): Promise<string> {
    if (!this.cookie) await this.fetch("/api/conversations");
    return this.cookie!.slice(this.cookie!.indexOf("=") + 1);
  }

  /** A new conversation, with the agent profile named, or the default one. */
  async createConversation(profile?: string): Promise<{ id: string; title: string }> {
    const body =
      profile === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify({ profile }) };
    const response = await this.fetch("/api/conversations", { method: "POST", ...body });
    if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
    return response.json();
  }

  /** A new API token of this identity, e.g. for an MCP client: `{ id, name, token }`. */
  async createToken(name: string): Promise<{ id: string; token: string }> {
    const response = await this.fetch("/api/tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    if (response.status !== 201) throw new Error(`token failed: ${response.status} ${await response.text()}`);
    return response.json();
  }

  /** `options`: the message's other fields (`plan`). */
  send(conversationId: string, content: string, options: { plan?: boolean } = {}): Promise<Response> {
    return this.fetch(`/api/conversations/${conversationId}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content, ...options }),
    });
  }

  /** Send a message and read the run's whole event stream. */
  async run(conversationId: string, content: string, options: { plan?: boolean } = {}): Promise<SseMessage[]> {
    return readSse(await this.send(conversationId, content, options));
  }

  /** Answer a call waiting for approval (`approved` as sent: a test may send something that is not a boolean). */
  answerApproval(conversationId: string, approvalId: string, approved: unknown): Promise<Response> {
    return this.fetch(`/api/conversations/${conversationId}/approvals/${approvalId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ approved }),
    });
  }

  events(conversationId: string, lastEventId?: number): Promise<Response> {
    return this.fetch(`/api/conversations/${conversationId}/events`, {
      headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
    });
  }

  async conversation(conversationId: string) {
    const response = await this.fetch(`/api/conversations/${conversationId}`);
    if (!response.ok) throw new Error(`get failed: ${response.status}`);
    return response.json();
  }
}

export function ofType(events: SseMessage[], type: string) {
  return events.filter((event) => event.data.type === type).map((event) => event.data);
}

/** A request of `client`'s with a JSON body, or none when `body` is undefined. */
export const sendJson = (client: Api, path: string, method: string, body?: unknown) =>
  client.fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** An answer's JSON (null when empty), once its status is the one expected: a mismatch shows the body. */
export async function expectJson(response: Response, status: number) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return text ? JSON.parse(text) : null;
}

/**
 * A client signed in to the account of `email` by a new seeded session (seedSignedIn), beside an anonymous identity
 * cookie of its own, as a browser is after signing in (signing out falls back to that identity).
 */
export async function signedInApi(databaseUrl: string, appUrl: string, email: string) {
  const seeded = await seedSignedIn(databaseUrl, email);
  const browser = new Api(appUrl);
  await browser.identity();
  browser.session = seeded.cookie;
  return { ...seeded, browser };
}
