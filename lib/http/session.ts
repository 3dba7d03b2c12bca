import { findSession, sessionIdOf, touchSession } from "@/lib/db/queries/sessions";
import { notifications } from "@/lib/db/driver/notifications";
import { processWide } from "@/lib/platform/process-wide";
import { clientAddress } from "./rate-limit";
import { IDLE_MS, sessionSecretOf } from "./session-cookie";

/**
 * How long this instance trusts what it read of a session before reading it again. Revoking tells every instance at
 * once (the `sessions` notification); this bounds how long an instance whose listener missed the word can be wrong.
 */
const CACHE_MS = 2_000;
/** Sessions this instance remembers; past it, the oldest are forgotten (and simply read again). */
const CACHE_ENTRIES = 10_000;

export interface SignedIn {
  sessionId: string;
  accountId: string;
}

interface Cached extends SignedIn {
  lastSeenAt: Date;
  readAt: number;
}

class SessionCache {
  private readonly byId = new Map<string, Cached>();

  constructor() {
    notifications.subscribe("sessions", (payload) => this.forgetLocally(payload));
  }

  async lookup(secret: string, request: { headers: Headers }): Promise<SignedIn | undefined> {
    const sessionId = sessionIdOf(secret);
    let cached = this.byId.get(sessionId);
    if (!cached || Date.now() - cached.readAt > CACHE_MS) {
      const row = await findSession(sessionId);
      if (!row || Date.now() - row.lastSeenAt.getTime() > IDLE_MS) {
        this.byId.delete(sessionId);
        return undefined;
      }
      cached = { sessionId, accountId: row.accountId, lastSeenAt: row.lastSeenAt, readAt: Date.now() };
      this.remember(cached);
      void touchSession(sessionId, row.lastSeenAt, clientAddress(request)).catch((error) =>
        console.error("Could not note a session's use:", error),
      );
    }
    return { sessionId, accountId: cached.accountId };
  }

  /**
   * Forget sessions on every instance: `session <id>` or `account <id>` (all of an account's). Call it after their
   * rows are deleted, so that no instance reads them again.
   */
  async forget(payload: `session ${string}` | `account ${string}`): Promise<void> {
    this.forgetLocally(payload);
    await notifications.publish("sessions", payload);
  }

  private forgetLocally(payload: string): void {
    const [kind, id] = payload.split(" ");
    if (kind === "session") this.byId.delete(id);
    else for (const [key, entry] of this.byId) if (entry.accountId === id) this.byId.delete(key);
  }

  private remember(entry: Cached): void {
    this.byId.delete(entry.sessionId);
    this.byId.set(entry.sessionId, entry);
    if (this.byId.size > CACHE_ENTRIES) this.byId.delete(this.byId.keys().next().value!);
  }
}

export const sessions = processWide("sessionCache", () => new SessionCache());

/** The signed-in account of a request's session cookie, if it has a standing one. */
export async function signedInOf(request: { headers: Headers }): Promise<SignedIn | undefined> {
  const secret = sessionSecretOf(request.headers.get("cookie"));
  return secret ? sessions.lookup(secret, request) : undefined;
}
