import { sandboxPool } from "@/lib/sandbox";
import { checkToolVersion } from "@/lib/tools/library/versions";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ModelServer } from "../tests/support/model-server";
import { ms, summarize, timed } from "./stats";

/** A 100-line tool: a unit converter with a table of factors, input checks and rounding. */
const UNITS = Array.from({ length: 80 }, (_, i) => `    unit_${i}: ${(i + 1) * 0.125},`);
const CODE = [
  "const FACTORS = {",
  ...UNITS,
  "};",
  "function factorOf(unit) {",
  "  const factor = FACTORS[unit];",
  "  if (factor === undefined) throw new Error('unknown unit: ' + unit);",
  "  return factor;",
  "}",
  "function round(value, digits) {",
  "  const scale = Math.pow(10, digits);",
  "  return Math.round(value * scale) / scale;",
  "}",
  "function run({ value, from, to, digits = 6 }) {",
  "  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error('value must be a number');",
  "  const base = value * factorOf(from);",
  "  return { value: round(base / factorOf(to), digits), from, to };",
  "}",
].join("\n");
const PARAMETERS = {
  type: "object",
  properties: {
    value: { type: "number" },
    from: { type: "string" },
    to: { type: "string" },
    digits: { type: "integer", minimum: 0, maximum: 12 },
  },
  required: ["value", "from", "to"],
};
const EXAMPLES = [
  { input: { value: 1, from: "unit_7", to: "unit_0" }, expected_output: { value: 8, from: "unit_7", to: "unit_0" } },
  {
    input: { value: 0.1, from: "unit_1", to: "unit_1" },
    expected_output: { to: "unit_1", from: "unit_1", value: 0.1 },
  },
  { input: { value: 3, from: "unit_0", to: "unit_2" }, expected_output: { value: 1, from: "unit_0", to: "unit_2" } },
];
const TOOL = {
  name: "convert_units",
  description: "Convert a value between units.",
  parametersSchema: PARAMETERS,
  code: CODE,
};

/**
 * What testing a tool costs: the checks of a registration with three examples against none (in this process), and
 * what generation adds to the model's own time through the real server: the request's duration less the model
 * server's (from its request's arrival to its answer's end), for a 100-line tool with three examples.
 */
export async function benchGeneration(): Promise<void> {
  await sandboxPool().warm();
  const check = (examples: typeof EXAMPLES) => async () => {
    const refusal = await checkToolVersion({ ...TOOL, examples });
    if (refusal) throw new Error(`the benchmark tool was refused: ${refusal.message}`);
  };
  for (let i = 0; i < 30; i++) await check(EXAMPLES)();
  const [without, withExamples] = [[], []] as number[][];
  for (let i = 0; i < 200; i++) {
    without.push((await timed(check([])))[0]);
    withExamples.push((await timed(check(EXAMPLES)))[0]);
  }

  const model = new ModelServer();
  await model.start();
  const app = scriptedApp(model.url);
  await app.start();
  /** By how the model server sends the call: whole, as Ollama and vLLM do, or in 7-character deltas. */
  const added = { whole: [] as number[], deltas: [] as number[] };
  try {
    const api = new Api(app.url);
    const definition = {
      name: "convert_units",
      description: TOOL.description,
      parameters_schema: PARAMETERS,
      code: CODE,
      examples: EXAMPLES,
    };
    for (let i = 0; i < 120; i++) {
      const description = `Convert values between units, request ${i}.`;
      const whole = i % 2 === 0;
      const call = { toolCalls: [{ name: "write_tool", args: definition }], argsChunkSize: whole ? 1e6 : 7 };
      model.script(description, [call]);
      const [total, response] = await timed(() =>
        api.fetch("/api/tools/generate", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ description }),
        }),
      );
      if (response.status !== 201) throw new Error(`generation failed: ${response.status} ${await response.text()}`);
      const [span] = model.answerSpansFor(description);
      // The first ten warm the server's code paths and connections.
      if (i >= 20) added[whole ? "whole" : "deltas"].push(total - (span.closedAt - span.openedAt));
    }
  } finally {
    await app.stop();
    await model.stop();
  }

  const rows = [
    ["check + compile, no examples", summarize(without)],
    ["check + compile + 3 examples", summarize(withExamples)],
  ] as const;
  console.log(`\n## Tested before trusted: registration of a ${CODE.split("\n").length}-line tool`);
  console.log("| registration | n | median | p95 |\n| --- | --- | --- | --- |");
  for (const [name, stats] of rows) console.log(`| ${name} | ${stats.n} | ${ms(stats.median)} | ${ms(stats.p95)} |`);
  const checks = summarize(withExamples);
  console.log(
    `What generation adds to the model's own time: check + 3 examples median ${ms(checks.median)}, p95 ${ms(checks.p95)} (target < 50 ms).`,
  );
  console.log(
    "Everything but the model server's own time, over HTTP (the request, the model client, check, examples, store, answer):",
  );
  for (const [sent, times] of Object.entries(added)) {
    const stats = summarize(times);
    console.log(
      `- the call sent ${sent === "whole" ? "whole" : "in 7-character deltas, each parsed by the AI SDK"}: median ${ms(stats.median)}, p95 ${ms(stats.p95)}, n ${stats.n}`,
    );
  }
}
