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

/** A Markdown table on standard output. */
export function printTable(headers: string[], rows: string[][]): void {
  console.log(`| ${headers.join(" | ")} |`);
  console.log(`| ${headers.map(() => "---").join(" | ")} |`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

/** Until the server's /api/health says every Python process is ready (a minute at most). */
export async function pythonReady(app: { url: string }): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { python } = (await (await fetch(`${app.url}/api/health`)).json()) as {
      python: { processes: number; ready: number };
    };
    if (python.processes > 0 && python.ready >= python.processes) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
