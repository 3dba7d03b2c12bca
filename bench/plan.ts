import type { AgentEvent, Plan } from "@/lib/contract/events";
import { applyEvents, emptyTrace, type TraceEvent } from "@/lib/trace/state";
import { Api, ofType } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ModelServer } from "../tests/support/model-server";
import { ms, printTable, summarize, timed } from "./stats";

const PLAN_ITEMS = 12;
const UPDATES = 50;
const ROUNDS = 40;
const RUNS = 20;

/**
 * What plan first costs: (a) the trace reducer taking a 12-item plan and 50 updates of it, each carrying the whole
 * plan, into a trace that holds a run of a few hundred events (goal: < 1 ms an event); (b) the planning step on the
 * scripted model: the same request with and without plan first, its time to run_finished and what it sent.
 */
export async function benchPlan(): Promise<void> {
  benchPlanReducer();
  await benchPlanningStep();
}

function benchPlanReducer(): void {
  const run = realisticRun(30);
  const base = applyEvents(emptyTrace, run);
  let id = run.length;
  const at = run.at(-1)!.at;
  const stamp = (event: AgentEvent): TraceEvent => ({ ...event, runId: "r1", id: ++id, at: at + id }) as TraceEvent;
  const plan = (done: number): Plan => ({
    steps: Array.from({ length: PLAN_ITEMS }, (_, index) => ({
      id: `p${index + 1}`,
      title: `Step ${index + 1}: read the CSV, group by region and sum the sales`,
      detail: "Columns region and amount; skip the header and any empty line.",
      status: index < done ? "done" : index === done ? "in_progress" : "pending",
      ...(index < done && { note: "Done as planned." }),
      step: 1,
    })),
  });
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let state = applyEvents(base, [stamp({ type: "plan_created", step: 1, callId: "p", plan: plan(0) })]);
    for (let update = 0; update < UPDATES; update++) {
      const event = stamp({
        type: "plan_updated",
        step: 2 + update,
        callId: `u${update}`,
        plan: plan(update % PLAN_ITEMS),
      });
      const started = performance.now();
      state = applyEvents(state, [event]);
      // The first rounds warm the reducer's code paths.
      if (round >= 5) samples.push(performance.now() - started);
    }
  }
  const { median, p95, p99 } = summarize(samples);
  console.log(
    `\n## Plan first: the trace reducer (goal: < 1 ms an event; a run of ${run.length} events, ` +
      `then 1 plan_created + ${UPDATES} plan_updated of a ${PLAN_ITEMS}-item plan)`,
  );
  // Microseconds: at a few µs an event, milliseconds with two decimals would read 0.00.
  const us = (value: number) => `${(value * 1000).toFixed(1)} µs`;
  printTable(
    ["per plan_updated", "median", "p95", "p99"],
    [[`${samples.length} samples`, us(median), us(p95), us(p99)]],
  );
}

/** A finished-looking run of `steps` steps, each some text, a call and its result: about 10 events a step. */
function realisticRun(steps: number): TraceEvent[] {
  const events: AgentEvent[] = [{ type: "run_started", messageId: "m1", model: "gpt", plan: true }];
  for (let step = 1; step <= steps; step++) {
    events.push({ type: "step_started", step });
    for (let delta = 0; delta < 5; delta++) events.push({ type: "text_delta", step, delta: "Looking at the data. " });
    events.push(
      { type: "tool_call", step, callId: `c${step}`, name: "calculate", input: { expression: `${step} * 2` } },
      { type: "tool_result", step, callId: `c${step}`, name: "calculate", ok: true, output: step * 2, durationMs: 3 },
      { type: "step_finished", step, finishReason: "tool-calls", usage: { inputTokens: 900, outputTokens: 60 } },
    );
  }
  return events.map((event, index) => ({ ...event, runId: "r1", id: index + 1, at: 1_000 + index }) as TraceEvent);
}

async function benchPlanningStep(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const app = scriptedApp(model.url);
  await app.start();
  const figures = { direct: [] as Figures[], planned: [] as Figures[] };
  try {
    const api = new Api(app.url);
    for (let round = 0; round < RUNS + 2; round++) {
      for (const planFirst of [false, true]) {
        const prompt = `Add 2 and 3, then say the sum (round ${round}, ${planFirst ? "planned" : "direct"}).`;
        model.script(prompt, [
          ...(planFirst
            ? [{ toolCalls: [{ name: "plan", args: { steps: [{ title: "Add" }, { title: "Say" }] } }] }]
            : []),
          { toolCalls: [{ name: "calculate", args: { expression: "2 + 3" } }] },
          { text: "The sum is 5." },
        ]);
        const { id } = await api.createConversation();
        const [elapsed, events] = await timed(() => api.run(id, prompt, { plan: planFirst }));
        if (ofType(events, "run_finished")[0]?.status !== "completed") throw new Error(`the run of "${prompt}" failed`);
        const tokens = ofType(events, "step_finished").reduce(
          (sum, { usage }) =>
            sum +
            ((usage as { inputTokens?: number })?.inputTokens ?? 0) +
            ((usage as { outputTokens?: number })?.outputTokens ?? 0),
          0,
        );
        const requests = model.requestsFor(prompt);
        const sent = requests.reduce((sum, request) => sum + JSON.stringify(request).length, 0);
        // The first two rounds warm the server's code paths and connections.
        if (round >= 2)
          figures[planFirst ? "planned" : "direct"].push({ elapsed, tokens, requests: requests.length, sent });
      }
    }
  } finally {
    await app.stop();
    await model.stop();
  }
  const row = (label: string, runs: Figures[]) => {
    const mean = (pick: (figures: Figures) => number) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
    return [
      label,
      ms(summarize(runs.map((run) => run.elapsed)).median),
      String(mean((run) => run.requests)),
      String(mean((run) => run.tokens)),
      mean((run) => run.sent).toFixed(0),
    ];
  };
  console.log(
    `\n## Plan first: the planning step on the scripted model (${RUNS} runs each; its usage is a fixed 10 + 5 tokens ` +
      "a call, so the characters of the requests sent are the size that tells)",
  );
  printTable(
    ["run", "to run_finished (median)", "model calls", "usage tokens", "characters sent to the model"],
    [row("without a plan", figures.direct), row("plan first", figures.planned)],
  );
}

interface Figures {
  elapsed: number;
  tokens: number;
  requests: number;
  sent: number;
}
