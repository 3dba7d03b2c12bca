/**
 * Trying again after a failure, for the server and the browser alike (no Node modules here). Deadlines are
 * `performance.now()` times: the monotonic clock, which a step of the system's clock does not move.
 */

/** The wait after a failure: `initialMs` after the first, `factor` times longer after each further one, at most `maxMs`. */
export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs?: number;
}

/** The wait after `failures` failures in a row (1 after the first). */
export const backoffDelay = ({ initialMs, factor, maxMs = Infinity }: Backoff, failures: number): number =>
  Math.min(initialMs * factor ** (failures - 1), maxMs);

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface RetryOptions {
  backoff: Backoff;
  /** Whether `error`, the `failures`th in a row, is worth another attempt; every error is by default. */
  retryable?: (error: unknown, failures: number) => boolean;
  /** The most attempts in all, the first included. */
  attempts?: number;
  /** A `performance.now()` time: an attempt that fails at or after it is the last. */
  deadline?: number;
  /** Ends a wait at once (rejecting with its reason); an attempt that fails once it is aborted is the last. */
  signal?: AbortSignal;
}

/**
 * `operation`'s result, trying it again after the backoff's wait while its error is retryable and the attempts,
 * the deadline and the signal allow. Otherwise it fails with the last attempt's error.
 */
export async function retry<T>(
  operation: () => Promise<T>,
  { backoff, retryable = () => true, attempts = Infinity, deadline = Infinity, signal }: RetryOptions,
): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await operation();
    } catch (error) {
      if (failures >= attempts || signal?.aborted || performance.now() >= deadline || !retryable(error, failures))
        throw error;
      await sleep(backoffDelay(backoff, failures), signal);
    }
  }
}
