import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
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
  await model.start();
  model.script("stream", [{ deltas: DELTAS }]);
  // BENCH_OTLP=1: the app also exports every finished run to a local OTLP receiver (what the exporter costs).
  const receiver = process.env.BENCH_OTLP === "1" ? new OtlpReceiver() : undefined;
  await receiver?.start();
  const app = scriptedApp(model.url, receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : {});
  await app.start();
  const api = new Api(app.url);

  try {
    const provider = createOpenAI({ baseURL: model.url, apiKey: "bench" });
    const bare = async () => {
      let count = 0;
      const result = streamText({ model: provider.chat("scripted-model"), prompt: "stream" });
      for await (const part of result.fullStream) if (part.type === "text-delta") count++;
      if (count !== DELTAS) throw new Error(`bare loop saw ${count} deltas`);
    };
    const conversation = await api.createConversation();
    const throughApp = async () => {
      const events = await api.run(conversation.id, "stream");
      const count = events.filter((event) => event.data.type === "text_delta").length;
      if (count !== DELTAS) throw new Error(`the app delivered ${count} deltas`);
    };

    // Warm up both paths (JIT, connection pools, the server's first compile of each route), then alternate.
    for (let i = 0; i < 5; i++) {
      await bare();
      await throughApp();
    }
    const bareTimes: number[] = [];
    const appTimes: number[] = [];
    const cpuBefore = app.cpuMs().process;
    for (let i = 0; i < RUNS; i++) {
      bareTimes.push((await timed(bare))[0]);
      appTimes.push((await timed(throughApp))[0]);
    }
    // What the server did for the runs, whatever else the machine does: its CPU, the work after a run's end included.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const cpuPerRun = (app.cpuMs().process - cpuBefore) / RUNS;
    const rate = (times: number[]) => DELTAS / (summarize(times).median / 1000);
    const bareRate = rate(bareTimes);
    const appRate = rate(appTimes);
    console.log(`\n## Stream overhead: ${DELTAS} text deltas, median of ${RUNS} runs each, alternating`);
    console.log(`bare streamText loop: ${Math.round(bareRate)} deltas/s (${ms(summarize(bareTimes).median)} a run)`);
    console.log(
      `through the app (HTTP + SSE + event log): ${Math.round(appRate)} deltas/s (${ms(summarize(appTimes).median)} a run)`,
    );
    console.log(`app / bare: ${((appRate / bareRate) * 100).toFixed(0)}% (target ≥ 80%)`);
    console.log(`the server's CPU per run: ${ms(cpuPerRun)}`);
    if (receiver) console.log(`exported to OTLP: ${receiver.spans().length} spans so far`);

    // 50 runs at once, each on its own conversation, each delta numbered so order can be checked.
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
    await app.stop();
    await model.stop();
    await receiver?.stop();
  }
}
