import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backoffDelay, retry, sleep, type Backoff } from "@/lib/platform/retry";

const BACKOFF: Backoff = { initialMs: 100, factor: 2, maxMs: 1_000 };

/** An operation that fails `failures` times with the given errors (the last one repeated), then answers "done". */
function failing(failures: number, errors: unknown[] = [new Error("down")]) {
  const at: number[] = [];
  const operation = async () => {
    at.push(performance.now());
    if (at.length > failures) return "done";
    throw errors[Math.min(at.length, errors.length) - 1];
  };
  return { operation, at };
}

/** The waits between the attempts made at these times. */
const gaps = (at: number[]) => at.slice(1).map((time, index) => time - at[index]);

describe("backoffDelay", () => {
  it("starts at the initial delay, multiplies it after each failure, and stops at the cap", () => {
    expect([1, 2, 3, 4, 5, 6].map((failures) => backoffDelay(BACKOFF, failures))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    expect(backoffDelay({ initialMs: 500, factor: 2 }, 8)).toBe(64_000);
  });
});

describe("retry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits as the backoff says between attempts, and answers with the first success", async () => {
    const { operation, at } = failing(5);
    const result = retry(operation, { backoff: BACKOFF });
    await vi.runAllTimersAsync();
    expect(await result).toBe("done");
    expect(gaps(at)).toEqual([100, 200, 400, 800, 1_000]);
  });

  it("makes at most `attempts` attempts, then fails with the last error", async () => {
    const errors = [new Error("first"), new Error("second"), new Error("third")];
    const { operation, at } = failing(5, errors);
    const result = retry(operation, { backoff: BACKOFF, attempts: 3 });
    const failed = expect(result).rejects.toBe(errors[2]);
    await vi.runAllTimersAsync();
    await failed;
    expect(at).toHaveLength(3);
  });

  it("stops at once at an error the predicate says is not worth another attempt", async () => {
    const fatal = new Error("refused");
    const { operation, at } = failing(5, [new Error("down"), fatal]);
    const seen: [unknown, number][] = [];
    const retryable = (error: unknown, failures: number) => (seen.push([error, failures]), error !== fatal);
    const result = retry(operation, { backoff: BACKOFF, retryable });
    const failed = expect(result).rejects.toBe(fatal);
    await vi.runAllTimersAsync();
    await failed;
    expect(at).toHaveLength(2);
    expect(seen.map(([, failures]) => failures)).toEqual([1, 2]);
  });

  it("makes no attempt after one that failed at or past the deadline", async () => {
    const { operation, at } = failing(100);
    const result = retry(operation, { backoff: BACKOFF, deadline: performance.now() + 1_000 });
    const failed = expect(result).rejects.toThrow("down");
    await vi.runAllTimersAsync();
    await failed;
    // attempts at 0, 100, 300, 700 and 1500: the one at 1500 failed past the deadline
    expect(gaps(at)).toEqual([100, 200, 400, 800]);
  });

  it("measures the deadline on the monotonic clock, which a step of the wall clock does not move", async () => {
    const { operation, at } = failing(3);
    const result = retry(operation, { backoff: BACKOFF, deadline: performance.now() + 1_000 });
    vi.setSystemTime(Date.now() + 3_600_000);
    await vi.runAllTimersAsync();
    expect(await result).toBe("done");
    expect(at).toHaveLength(4);
  });

  it("ends a wait at once when the signal aborts, with its reason", async () => {
    const controller = new AbortController();
    const { operation, at } = failing(5);
    const result = retry(operation, { backoff: { initialMs: 60_000, factor: 1 }, signal: controller.signal });
    const failed = expect(result).rejects.toBe("stopped");
    await vi.advanceTimersByTimeAsync(10);
    controller.abort("stopped");
    await failed;
    expect(at).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("fails with the attempt's own error when the signal aborted during the attempt", async () => {
    const controller = new AbortController();
    const error = new Error("cut off");
    await expect(
      retry(
        async () => {
          controller.abort();
          throw error;
        },
        { backoff: BACKOFF, signal: controller.signal },
      ),
    ).rejects.toBe(error);
  });
});

describe("sleep", () => {
  it("resolves after the delay, and rejects at once for a signal already aborted", async () => {
    const started = performance.now();
    await sleep(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4);
    await expect(sleep(60_000, AbortSignal.abort("gone"))).rejects.toBe("gone");
  });
});
