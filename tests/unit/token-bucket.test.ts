import { describe, expect, it, vi } from "vitest";
import { RateLimiter } from "@/lib/platform/token-bucket";

describe("rate limiter", () => {
  it("refuses past its capacity and says when to retry", () => {
    const limiter = new RateLimiter(2, 60_000);
    expect(limiter.take("a", 0)).toEqual({ ok: true });
    expect(limiter.take("a", 0)).toEqual({ ok: true });
    expect(limiter.take("a", 0)).toEqual({ ok: false, retryAfterSeconds: 30 });
    expect(limiter.take("a", 30_000)).toEqual({ ok: true });
  });

  it("forgets buckets untouched for a whole window, so many one-off keys do not pile up", () => {
    const limiter = new RateLimiter(5, 60_000);
    for (let index = 0; index < 1000; index++) limiter.take(`visitor ${index}`, index);
    expect(limiter.size).toBe(1000);
    // a window later, every take drops up to two refilled buckets
    for (let index = 0; index < 600; index++) limiter.take("regular", 70_000 + index);
    expect(limiter.size).toBe(1);
    // a forgotten key starts full, as it would have been
    for (let index = 0; index < 5; index++) expect(limiter.take("visitor 3", 80_000)).toEqual({ ok: true });
    expect(limiter.take("visitor 3", 80_000)).toMatchObject({ ok: false });
  });

  it("refills with the time passed on the monotonic clock, whatever the system's clock does", () => {
    vi.useFakeTimers();
    try {
      const limiter = new RateLimiter(1, 60_000);
      expect(limiter.take("a")).toEqual({ ok: true });
      vi.setSystemTime(Date.now() + 3_600_000);
      expect(limiter.take("a")).toMatchObject({ ok: false });
      vi.advanceTimersByTime(60_000);
      expect(limiter.take("a")).toEqual({ ok: true });
    } finally {
      vi.useRealTimers();
    }
  });
});
