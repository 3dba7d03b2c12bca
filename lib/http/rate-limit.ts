import { config } from "@/lib/settings/config";
import { processWide } from "@/lib/platform/process-wide";
import { RateLimiter } from "@/lib/platform/token-bucket";
import { ApiError } from "@/lib/platform/errors";

/** Many people can share one address (an office, a household), so it gets this many times an identity's budget. */
const ADDRESS_FACTOR = 3;

export type LimitedAction = "conversations" | "messages" | "generations" | "reviews" | "uploads";

/** What the 429 says there were too many of. */
const ACTION_NAMES: Record<LimitedAction, string> = {
  conversations: "new conversations",
  messages: "messages",
  generations: "tools written from descriptions",
  reviews: "annotations and verdicts",
  uploads: "files uploaded",
};

const limiters: Record<string, RateLimiter> = processWide("rateLimiters", () => ({
  "conversations:identity": new RateLimiter(config.rateLimits.conversationsPerMinute),
  "conversations:address": new RateLimiter(config.rateLimits.conversationsPerMinute * ADDRESS_FACTOR),
  "messages:identity": new RateLimiter(config.rateLimits.messagesPerMinute),
  "messages:address": new RateLimiter(config.rateLimits.messagesPerMinute * ADDRESS_FACTOR),
  // Writing a tool asks the model as a message does, up to a few times: it shares the messages' budget size.
  "generations:identity": new RateLimiter(config.rateLimits.messagesPerMinute),
  "generations:address": new RateLimiter(config.rateLimits.messagesPerMinute * ADDRESS_FACTOR),
  "reviews:identity": new RateLimiter(config.rateLimits.reviewsPerMinute),
  "reviews:address": new RateLimiter(config.rateLimits.reviewsPerMinute * ADDRESS_FACTOR),
  "uploads:identity": new RateLimiter(config.files.uploadsPerMinute),
  "uploads:address": new RateLimiter(config.files.uploadsPerMinute * ADDRESS_FACTOR),
}));

/**
 * Count one `action` against the identity and against the client's address (server.mjs makes the address the
 * socket's, or the trusted proxy's report of it): a client that drops its cookie for a fresh identity each time is
 * still bounded. Throws 429 with Retry-After when either budget is spent.
 */
export function limitRate(action: LimitedAction, identity: string, request: Request): void {
  for (const [scope, key] of [
    ["identity", identity],
    ["address", clientAddress(request)],
  ] as const) {
    const outcome = limiters[`${action}:${scope}`].take(key);
    if (!outcome.ok) {
      throw new ApiError(
        429,
        "rate_limited",
        `Too many ${ACTION_NAMES[action]} in a minute; try again in ${outcome.retryAfterSeconds} s.`,
        { headers: { "retry-after": String(outcome.retryAfterSeconds) } },
      );
    }
  }
}

/** Sign-in attempts (a passkey's options and answer, single sign-on, an email link's use) per client address per minute: an office shares one. */
const SIGN_INS_PER_MINUTE = 30;
/** Email links per address, and per client address, per quarter of an hour: a mailbox is not to be flooded. */
const EMAIL_LINKS_PER_ADDRESS = 3;
const EMAIL_LINKS_PER_CLIENT = 30;
const QUARTER_HOUR_MS = 15 * 60_000;

const signInLimiters = processWide("signInLimiters", () => ({
  "sign_in:address": new RateLimiter(SIGN_INS_PER_MINUTE),
  "email_link:email": new RateLimiter(EMAIL_LINKS_PER_ADDRESS, QUARTER_HOUR_MS),
  "email_link:address": new RateLimiter(EMAIL_LINKS_PER_CLIENT, QUARTER_HOUR_MS),
}));

/**
 * Count a sign-in attempt from the client's address, or (`email_link`) an email link asked for, against both the
 * address it goes to and the client: guessing and mailbox flooding are bounded. Throws 429 with Retry-After.
 */
export function limitSignIn(
  request: Request,
  attempt: { kind: "sign_in" } | { kind: "email_link"; email: string },
): void {
  const keys: [keyof typeof signInLimiters, string][] =
    attempt.kind === "sign_in"
      ? [["sign_in:address", clientAddress(request)]]
      : [
          ["email_link:email", attempt.email.toLowerCase()],
          ["email_link:address", clientAddress(request)],
        ];
  for (const [limiter, key] of keys) {
    const outcome = signInLimiters[limiter].take(key);
    if (!outcome.ok)
      throw new ApiError(
        429,
        "rate_limited",
        `Too many sign-in attempts; try again in ${outcome.retryAfterSeconds} s.`,
        { headers: { "retry-after": String(outcome.retryAfterSeconds) } },
      );
  }
}

/** The client's address: server.mjs makes it the socket's, or the trusted proxy's report of it. */
export function clientAddress(request: { headers: Headers }): string {
  return request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() || "unknown";
}

/** Event streams open on this instance, by identity and by address. */
const openStreams = processWide("openStreams", () => new Map<string, number>());

/**
 * Count an event stream the client opens, against its identity (if it has one: a share link's viewer may not) and
 * its address, until the returned function is called as the stream closes. Each open stream holds a connection and
 * a follower, so their number is bounded like a rate: 429 past it.
 */
export function holdOpenStream(request: Request, identity?: string): () => void {
  const cap = config.rateLimits.openStreams;
  const held = [
    ...(identity ? [{ key: `identity:${identity}`, cap, limit: `(at most ${cap} per person)` }] : []),
    {
      key: `address:${clientAddress(request)}`,
      cap: cap * ADDRESS_FACTOR,
      limit: `from one address (at most ${cap * ADDRESS_FACTOR})`,
    },
  ];
  const full = held.find(({ key, cap }) => (openStreams.get(key) ?? 0) >= cap);
  if (full) {
    throw new ApiError(
      429,
      "too_many_streams",
      `Too many event streams open at once ${full.limit}; close some tabs, or the streams a script left open.`,
      { headers: { "retry-after": "5" } },
    );
  }
  for (const { key } of held) openStreams.set(key, (openStreams.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const { key } of held) {
      const left = openStreams.get(key)! - 1;
      if (left > 0) openStreams.set(key, left);
      else openStreams.delete(key);
    }
  };
}
