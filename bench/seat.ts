import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ms, summarize, timed } from "./stats";

const ROUNDS = 600;
const WARM_UP = 60;

/**
 * What SEAT's API at /seat adds over the /api routes it maps onto (lib/seat): the same tool read and executed
 * through both, with the same API token, alternating call by call so that both see the same server state. Each
 * figure is the median of the pairwise differences, over loopback (goal: under 1 ms).
 */
export async function benchSeat(): Promise<void> {
  const app = scriptedApp("http://127.0.0.1:9/v1");
  await app.start();
  try {
    const { token } = await new Api(app.url).createToken("bench");
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const made = await fetch(`${app.url}/api/tools`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "word_count",
        description: "Count the words of a text.",
        parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        code: "function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }",
      }),
    });
    if (made.status !== 201) throw new Error(`create failed: ${made.status} ${await made.text()}`);
    const { id } = (await made.json()) as { id: string };
    const text = "the quick brown fox jumps over the lazy dog";
    const call = (path: string, body?: unknown) => async () => {
      const response = await fetch(`${app.url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      await response.json();
    };
    const pairs = {
      "GET /seat/tools/{id} over GET /api/tools/{id}": [call(`/seat/tools/${id}`), call(`/api/tools/${id}`)],
      "POST /seat/tools/{id}/execute over POST /api/tools/{id}/execute": [
        call(`/seat/tools/${id}/execute`, { input_data: { text } }),
        call(`/api/tools/${id}/execute`, { input: { text } }),
      ],
    };
    console.log(`\n## SEAT's API at /seat over /api (the same tool and token, loopback, ${ROUNDS} pairs)`);
    for (const [label, [seat, api]] of Object.entries(pairs)) {
      for (let i = 0; i < WARM_UP; i++) await Promise.all([seat(), api()]);
      const seatTimes: number[] = [];
      const apiTimes: number[] = [];
      const differences: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        // Alternate which goes first, so neither always meets a warmer cache.
        const [first, second] = i % 2 ? [seat, api] : [api, seat];
        const [firstMs] = await timed(first);
        const [secondMs] = await timed(second);
        const [seatMs, apiMs] = i % 2 ? [firstMs, secondMs] : [secondMs, firstMs];
        seatTimes.push(seatMs);
        apiTimes.push(apiMs);
        differences.push(seatMs - apiMs);
      }
      const [seatStats, apiStats, added] = [summarize(seatTimes), summarize(apiTimes), summarize(differences)];
      console.log(
        `${label}: /seat median ${ms(seatStats.median)}, /api median ${ms(apiStats.median)}; /seat adds ${ms(added.median)} at the median of the pairs (goal < 1 ms)`,
      );
    }
  } finally {
    await app.stop();
  }
}
