import { SecretBoundary } from "@/lib/sandbox/secret-boundary";
import { ms, printTable, summarize } from "./stats";

const ROUNDS = 200;
const MB = 1024 * 1024;

/**
 * What secrets cost a request of a tool (goal: ≤ 1 ms for a 1 MB body): filling the placeholder into a request
 * with a 1 MB body, and taking the value out of a 1 MB reply, where it is absent (the usual case) and where an API
 * echoed it a thousand times. Bytes as Python's requests send and read them; text as JavaScript's fetch does.
 */
export async function benchSecrets(): Promise<void> {
  const value = "sk-live-0123456789abcdef0123456789abcdef";
  const boundary = new SecretBoundary([{ id: "s", name: "WEATHER_KEY", value, hosts: ["api.weather.test"] }]);
  const { WEATHER_KEY } = boundary.placeholders();
  const filler = "x".repeat(MB - WEATHER_KEY.length);
  const bodyText = `${WEATHER_KEY}${filler}`;
  const bodyBytes = Buffer.from(bodyText);
  const request = (body: string | Buffer) => ({
    url: `https://api.weather.test/v1?appid=${WEATHER_KEY}`,
    headers: { "x-api-key": WEATHER_KEY, accept: "application/json" },
    body,
  });
  const clean = Buffer.from("y".repeat(MB));
  const cleanText = clean.toString();
  const echoing = Buffer.from(`${value}${"z".repeat(1024 - value.length)}`.repeat(1024));

  const cases: [string, () => unknown][] = [
    ["fill a request, 1 MB text body", () => boundary.fill(request(bodyText), "api.weather.test")],
    ["fill a request, 1 MB bytes body", () => boundary.fill(request(bodyBytes), "api.weather.test")],
    ["redact a 1 MB reply without the value (bytes)", () => boundary.redactBytes(clean)],
    ["redact a 1 MB reply without the value (text)", () => boundary.redact(cleanText)],
    ["redact a 1 MB reply echoing it 1,024 times (bytes)", () => boundary.redactBytes(echoing)],
  ];
  const rows = cases.map(([label, work]) => {
    for (let warm = 0; warm < 20; warm++) work();
    const samples = Array.from({ length: ROUNDS }, () => {
      const started = performance.now();
      work();
      return performance.now() - started;
    });
    const { median, p95 } = summarize(samples);
    return [label, ms(median), ms(p95)];
  });
  console.log("\n## Secrets at the boundary (goal: ≤ 1 ms for a 1 MB body)");
  printTable(["case", "median", "p95"], rows);
}
