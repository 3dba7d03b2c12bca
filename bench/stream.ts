import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, type LanguageModel } from "ai";
import { AnthropicServer } from "../tests/support/anthropic-server";
import { Api } from "../tests/support/api";
import { scriptedApp, type AppServer } from "../tests/support/app-server";
import { ModelServer } from "../tests/support/model-server";
import { OtlpReceiver } from "../tests/support/otlp-receiver";
import { readSse } from "../tests/support/sse";
import { ms, summarize, timed } from "./stats";

const DELTAS = 2000;
const RUNS = 10;
const CONCURRENT = 50;
const CONCURRENT_DELTAS = 200;

export async function benchStream(): Promise<void> {
  const model = new ModelServer();
  const claude = new AnthropicServer();
  await Promise.all([model.start(), claude.start()]);
  model.script("stream", [{ deltas: DELTAS }]);
  claude.script("stream", [{ deltas: DELTAS }]);
  // BENCH_OTLP=1: the app also exports every finished run to a local OTLP receiver (what the exporter costs).
  const receiver = process.env.BENCH_OTLP === "1" ? new OtlpReceiver() : undefined;
  await receiver?.start();
  const otlp: Record<string, string> = receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : {};
  const app = scriptedApp(model.url, otlp);
  // The same app with Claude as its model: Anthropic's SSE events (three a delta's worth of framing) through its client.
  const claudeApp = scriptedApp(model.url, {
    ...otlp,
    ANTHROPIC_API_KEY: "bench",
    ANTHROPIC_BASE_URL: claude.url,
    TOOLSMITH_MODEL: "claude-sonnet-4-5",
  });
  await Promise.all([app.start(), claudeApp.start()]);
  const api = new Api(app.url);

  try {
    // The two dialects in the same run, interleaved round by round, so that the machine's load falls on both alike.
    const dialects = [
      await forwarding(
        "OpenAI Chat Completions",
        app,
        createOpenAI({ baseURL: model.url, apiKey: "bench" }).chat("scripted-model"),
      ),
      await forwarding(
        "Anthropic Messages",
        claudeApp,
        createAnthropic({ baseURL: claude.url, apiKey: "bench" }).messages("claude-sonnet-4-5"),
      ),
    ];
    for (let i = 0; i < 5; i++) for (const dialect of dialects) await dialect.round();
    for (const dialect of dialects) dialect.reset();
    for (let i = 0; i < RUNS; i++) for (const dialect of dialects) await dialect.round();
    // What the servers did for the runs, whatever else the machine does: their CPU, the work after a run's end included.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    console.log(`\n## Stream overhead: ${DELTAS} text deltas, median of ${RUNS} runs each, alternating`);
    for (const dialect of dialects) dialect.report();
    if (receiver) console.log(`exported to OTLP: ${receiver.spans().length} spans so far`);

    // 50 runs at once, each on its own conversation, each delta numbered so order can be checked; under one
    // identity, taken first (conversations created at once without a cookie would each get another).
    await api.identity();
    const conversations = await Promise.all(Array.from({ length: CONCURRENT }, () => api.createConversation()));
    conversations.forEach((_, index) =>
      model.script(`concurrent ${index}`, [{ deltas: CONCURRENT_DELTAS, numbered: true }]),
    );
    const expected = Array.from({ length: CONCURRENT_DELTAS }, (_, i) => `${i},`).join("");
    const [wall, results] = await timed(() =>
      Promise.all(conversations.map((c, index) => api.run(c.id, `concurrent ${index}`))),
    );
    let problems = 0;
    for (const [index, events] of results.entries()) {
      const text = events
        .filter((event) => event.data.type === "text_delta")
        .map((event) => event.data.delta)
        .join("");
      const idsInOrder = events.every((event, i) => event.id === i + 1);
      const replayed = await readSse(await api.events(conversations[index].id));
      if (text !== expected || !idsInOrder || JSON.stringify(replayed) !== JSON.stringify(events)) problems++;
    }
    console.log(`\n## ${CONCURRENT} concurrent runs of ${CONCURRENT_DELTAS} deltas each`);
    console.log(`wall time ${ms(wall)}; runs with lost, reordered or differently replayed events: ${problems}`);
  } finally {
    await Promise.all([app.stop(), claudeApp.stop()]);
    await Promise.all([model.stop(), claude.stop()]);
    await receiver?.stop();
  }
}

/** One dialect's forwarding: a bare streamText loop against its scripted server, and the same stream through the app. */
async function forwarding(name: string, app: AppServer, model: LanguageModel) {
  const api = new Api(app.url);
  const conversation = await api.createConversation();
  const bare = async () => {
    let count = 0;
    const result = streamText({ model, prompt: "stream" });
    for await (const part of result.fullStream) if (part.type === "text-delta") count++;
    if (count !== DELTAS) throw new Error(`${name}: the bare loop saw ${count} deltas`);
  };
  const throughApp = async () => {
    const events = await api.run(conversation.id, "stream");
    const count = events.filter((event) => event.data.type === "text_delta").length;
    if (count !== DELTAS) throw new Error(`${name}: the app delivered ${count} deltas`);
  };
  let bareTimes: number[] = [];
  let appTimes: number[] = [];
  let cpuBefore = app.cpuMs().process;
  const rate = (times: number[]) => DELTAS / (summarize(times).median / 1000);
  return {
    async round() {
      bareTimes.push((await timed(bare))[0]);
      appTimes.push((await timed(throughApp))[0]);
    },
    reset() {
      bareTimes = [];
      appTimes = [];
      cpuBefore = app.cpuMs().process;
    },
    report() {
      const cpuPerRun = (app.cpuMs().process - cpuBefore) / appTimes.length;
      const [bareRate, appRate] = [rate(bareTimes), rate(appTimes)];
      console.log(`${name}:`);
      console.log(
        `  bare streamText loop: ${Math.round(bareRate)} deltas/s (${ms(summarize(bareTimes).median)} a run)`,
      );
      console.log(
        `  through the app (HTTP + SSE + event log): ${Math.round(appRate)} deltas/s (${ms(summarize(appTimes).median)} a run)`,
      );
      console.log(`  app / bare: ${((appRate / bareRate) * 100).toFixed(0)}% (target ≥ 80%)`);
      console.log(`  the server's CPU per run: ${ms(cpuPerRun)}`);
    },
  };
}
