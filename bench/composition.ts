import { Api, sendJson } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { freshSqliteUrl } from "../tests/support/database";
import { ms, summarize, timed } from "./stats";

const ROUNDS = 400;
const WARM_UP = 40;
const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const tool = (name: string, code: string, uses: string[] = []) => ({
  name,
  description: `The ${name} tool.`,
  parameters_schema: SCHEMA,
  code,
  uses,
});

/**
 * What one inner `tools.call` of a library tool costs (goal < 3 ms): `greet` calls the library tool `shout`, and
 * `greet_alone` does shout's work itself, otherwise the same. Both run through POST /api/tools/{id}/execute,
 * alternating call by call over loopback; the median of the pairwise differences is the inner call: the host round
 * trip out of the sandbox, the library lookup, the one call path (schema, audit, execution record) and shout's own
 * sandbox run.
 */
export async function benchComposition(): Promise<void> {
  const app = scriptedApp("http://127.0.0.1:9/v1", {}, freshSqliteUrl());
  await app.start();
  try {
    const api = new Api(app.url);
    const create = async (body: object) => {
      const response = await sendJson(api, "/api/tools", "POST", body);
      if (response.status !== 201) throw new Error(`POST /api/tools answered ${response.status}`);
      return ((await response.json()) as { id: string }).id;
    };
    await create(tool("shout", "function run({ text }) { return text.toUpperCase() + '!'; }"));
    const greet = await create(
      tool("greet", "async function run({ text }) { return { greeting: await tools.call('shout', { text }) }; }", [
        "shout",
      ]),
    );
    const alone = await create(
      tool("greet_alone", "async function run({ text }) { return { greeting: text.toUpperCase() + '!' }; }"),
    );
    const execute = (id: string) => async () => {
      const response = await sendJson(api, `/api/tools/${id}/execute`, "POST", { input: { text: "hello" } });
      const body = (await response.json()) as { ok: boolean };
      if (!body.ok) throw new Error(`the call failed: ${JSON.stringify(body)}`);
    };
    for (let i = 0; i < WARM_UP; i++) await Promise.all([execute(greet)(), execute(alone)()]);
    const composed: number[] = [];
    const single: number[] = [];
    const inner: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [withoutCall] = await timed(execute(alone));
      const [withCall] = await timed(execute(greet));
      single.push(withoutCall);
      composed.push(withCall);
      inner.push(withCall - withoutCall);
    }
    const [a, b, c] = [summarize(single), summarize(composed), summarize(inner)];
    console.log("\n## Tools that call tools (POST /api/tools/{id}/execute, SQLite, loopback)");
    console.log("| call | n | median | p95 |\n| --- | --- | --- | --- |");
    console.log(`| greet_alone (no inner call) | ${a.n} | ${ms(a.median)} | ${ms(a.p95)} |`);
    console.log(`| greet (one tools.call of shout) | ${b.n} | ${ms(b.median)} | ${ms(b.p95)} |`);
    console.log(`| the inner tools.call (pairwise difference) | ${c.n} | ${ms(c.median)} | ${ms(c.p95)} |`);
    console.log(`inner tools.call median ${ms(c.median)} (goal < 3 ms)`);
  } finally {
    await app.stop();
  }
}
