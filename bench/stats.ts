export function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: samples.length, median: at(0.5), p95: at(0.95), p99: at(0.99), min: sorted[0] };
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;

export async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}
