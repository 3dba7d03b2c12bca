const WINDOW_MS = 60_000;
/** Buckets kept per limiter: past this, the least recently used are forgotten (a flood of new keys is bounded). */
const MAX_KEYS = 50_000;

/** Token buckets in memory: `capacity` actions, refilled evenly over `windowMs` (a minute by default). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();

  constructor(
    private readonly capacity: number,
    private readonly windowMs = WINDOW_MS,
  ) {}

  /** Keys with a bucket in memory. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Spend one token of `key`'s bucket; when there is none, how long until there is. `now` is on the monotonic clock:
   * a step of the system's clock would otherwise refill every bucket at once, or leave them empty.
   */
  take(key: string, now = performance.now()): { ok: true } | { ok: false; retryAfterSeconds: number } {
    this.forgetRefilled(now);
    const refillPerMs = this.capacity / this.windowMs;
    const bucket = this.buckets.get(key);
    const tokens = bucket
      ? Math.min(this.capacity, bucket.tokens + (now - bucket.updated) * refillPerMs)
      : this.capacity;
    if (tokens < 1) return { ok: false, retryAfterSeconds: Math.ceil((1 - tokens) / refillPerMs / 1000) };
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: tokens - 1, updated: now });
    if (this.buckets.size > MAX_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    return { ok: true };
  }

  /**
   * The map is in order of last use, and a bucket untouched for a whole window is full again, which is what an
   * absent key means: the oldest go as they refill, two per call, so the map shrinks back after a burst of keys.
   */
  private forgetRefilled(now: number): void {
    for (let i = 0; i < 2; i++) {
      const oldest = this.buckets.entries().next().value;
      if (!oldest || now - oldest[1].updated < this.windowMs) return;
      this.buckets.delete(oldest[0]);
    }
  }
}
