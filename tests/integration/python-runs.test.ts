import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

/*
 * The Python sandbox as people meet it through the server: one identity's tool cannot leave anything for another's,
 * and Stop ends a run whose Python tool spins.
 */

const model = new ModelServer();
let app: AppServer;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_PYTHON_WORKERS: "2" });
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const OBJECT = { type: "object" };
const register = async (client: Api, name: string, code: string) =>
  (await expectJson(
    await sendJson(client, "/api/tools", "POST", {
      name,
      description: name,
      parameters_schema: OBJECT,
      language: "python",
      code,
    }),
    201,
  )) as { id: string };
const execute = async (client: Api, id: string) =>
  expectJson(await sendJson(client, `/api/tools/${id}/execute`, "POST", { input: {} }), 200);
const python = async () => (await (await fetch(`${app.url}/api/health`)).json()).python;

const POISON = `import math, json, random, decimal, collections, statistics

def run(inputs):
    math.pi = 3
    json.dumps = lambda value, **options: "poisoned"
    random.seed(7)
    decimal.getcontext().prec = 2
    collections.Counter.most_common = lambda self, n=None: "poisoned"
    statistics.mean.poisoned = True
    return "poisoned"
`;
const PROBE = `import math, json, random, decimal, collections, statistics

def run(inputs):
    return {
        "pi": math.pi,
        "dumps": json.dumps([1]),
        "seeded": random.Random(7).random() == random.random(),
        "third": str(decimal.Decimal(1) / decimal.Decimal(3)),
        "counter": collections.Counter("aab").most_common(1),
        "marked": hasattr(statistics.mean, "poisoned"),
    }
`;

describe("Python tools of different people", () => {
  it("share nothing: what one person's tool does to modules, classes and state, another's never sees", async () => {
    const [mallory, alice] = [new Api(app.url), new Api(app.url)];
    const poison = await register(mallory, "poison", POISON);
    const probe = await register(alice, "probe", PROBE);
    expect(await execute(mallory, poison.id)).toMatchObject({ ok: true, output: "poisoned" });
    // Side by side, so that every process of the pool answers one of them.
    const answers = await Promise.all(Array.from({ length: 6 }, () => execute(alice, probe.id)));
    for (const answer of answers) {
      expect(answer).toMatchObject({
        ok: true,
        output: {
          pi: Math.PI,
          dumps: "[1]",
          seeded: false,
          third: "0.3333333333333333333333333333",
          counter: [["a", 2]],
          marked: false,
        },
      });
    }
    // Another person's tool is not even there for Mallory.
    expect((await sendJson(mallory, `/api/tools/${probe.id}/execute`, "POST", { input: {} })).status).toBe(404);
  });
});

describe("Stop during a Python tool", () => {
  it("ends a run whose Python tool spins, kills its process, and the next call is answered", async () => {
    const api = new Api(app.url);
    const prompt = "Spin in Python.";
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "spin",
              description: "Spins forever.",
              parameters_schema: OBJECT,
              python_code: "def run(inputs):\n    while True:\n        pass\n",
            },
          },
        ],
      },
      { toolCalls: [{ name: "spin", args: {} }] },
      { text: "Spun." },
    ]);
    const conversation = await api.createConversation();
    const before = await python();
    const seen = await readSse(
      await api.send(conversation.id, prompt),
      (message) => message.data.type === "tool_call" && message.data.name === "spin",
    );
    await expect.poll(async () => (await python()).busy, { interval: 20 }).toBe(1);
    const stopped = performance.now();
    expect((await api.fetch(`/api/conversations/${conversation.id}/cancel`, { method: "POST" })).status).toBe(202);
    const rest = await readSse(
      await api.events(conversation.id, seen.at(-1)!.id),
      (message) => message.data.type === "run_finished",
    );
    expect(performance.now() - stopped).toBeLessThan(1000);
    expect(rest.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
    expect(ofType(rest, "tool_result")).toEqual([
      expect.objectContaining({ name: "spin", ok: false, error: expect.stringContaining("cancelled") }),
    ]);
    expect((await python()).terminated.cancelled).toBe(before.terminated.cancelled + 1);
    const quick = await register(api, "quick", "def run(inputs):\n    return 'answered'\n");
    expect(await execute(api, quick.id)).toMatchObject({ ok: true, output: "answered" });
  });
});
