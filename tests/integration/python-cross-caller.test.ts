import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import type { AppServer } from "../support/app-server";
import { escapeServer } from "../support/escape-server";
import {
  EscapeTargets,
  crossCallerForms,
  crossCallerVictim,
  crossCallerVictimCode,
  reported,
  type CrossCallerForm,
} from "../support/python-escapes";

// The cross-caller forms of the escape corpus through the production server, on one Python process slot: identity A
// registers a form's plant and harvest, identity B an ordinary tool; then A's plant, B's tool with a secret in its
// input, and A's harvest run one after the other on that slot. A form holds when B's secret is in nothing A got back
// (registrations, answers, error text), B's answer is exactly what it is on a fresh server, and nothing else shows an
// escape (the canary, the listener, host files, what a form says it got through, what a harvest found of B's call).
// Once with the policy check and once without it (TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY=1), side by side.
const targets = new EscapeTargets();

/**
 * A request that has not answered by then counts as the answer it is: none. A call waits at most for the slot's
 * previous call (2 s), a new zygote if a form killed the old one, and its own 2 s.
 */
const REQUEST_MS = 10_000;

// One slot: every call (and every registration's check) of both identities is a child of the same zygote.
const oneSlotServer = (env: Record<string, string> = {}) => escapeServer(targets, 1, env);

interface Server {
  name: string;
  env: Record<string, string>;
  app: AppServer;
  attacker?: Api;
  victim?: Api;
  victimTool?: string;
  /** The slot's zygote as a call sees it (an object's address, the same in every child of one zygote). */
  zygote?: string;
}
const serverOf = (name: string, env: Record<string, string> = {}): Server => ({ name, env, app: oneSlotServer(env) });
const withPolicy = serverOf("with the policy");
const withoutPolicy = serverOf("without the policy", { TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY: "1" });

/** Start the server with its two identities, B's ordinary tool registered and answering as it should. */
async function open(server: Server): Promise<void> {
  await server.app.start();
  server.attacker = new Api(server.app.url);
  server.victim = new Api(server.app.url);
  // Two identities: each client keeps the cookie the server gives it.
  expect(await server.attacker.identity()).not.toBe(await server.victim.identity());
  const registered = await register(server.victim, "ordinary_report", crossCallerVictimCode);
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  server.victimTool = registered.body.id as string;
  const { input, output } = crossCallerVictim();
  expect((await call(server.victim, server.victimTool, input)).body).toMatchObject({ ok: true, output });
  const probe = await register(server.attacker, "zygote", ZYGOTE_PROBE);
  server.zygote = (await call(server.attacker, probe.body.id, {})).body.output as string;
}

/** What look() (the harvests' helper) reports as the zygote: json.dumps's address, inherited by every child. */
const ZYGOTE_PROBE = "import json\n\n\ndef run(inputs):\n    return hex(id(json.dumps))\n";

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(client: Api, url: string, body: unknown): Promise<Answer> {
  try {
    const response = await client.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_MS),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: { text } };
    }
  } catch (error) {
    return { status: 0, body: { error: `no answer: ${(error as Error).message}` } };
  }
}

const toolBody = (name: string, code: string) => ({
  name,
  description: "A Python tool of the escape corpus's cross-caller forms.",
  parameters_schema: { type: "object" },
  code,
  language: "python",
});

async function register(client: Api, name: string, code: string): Promise<Answer> {
  return post(client, "/api/tools", toolBody(name, code));
}

const call = (client: Api, id: unknown, input: unknown) => post(client, `/api/tools/${id}/execute`, { input });

interface Run {
  form: CrossCallerForm;
  plant: { registration: Answer; call?: Answer };
  harvest: { registration: Answer; call?: Answer };
  victim: Answer;
  expected: unknown;
  secret: string;
  failures: string[];
}

/** One form: A registers plant and harvest, then plant (A), victim (B, a fresh secret), harvest (A), in order. */
async function attempt(server: Server, form: CrossCallerForm, index: number, refusals: string[]): Promise<Run> {
  const attacker = server.attacker!;
  const { secret, input, output } = crossCallerVictim();
  const plant: Run["plant"] = { registration: await register(attacker, `plant_${index}`, targets.code(form, "plant")) };
  const harvest: Run["harvest"] = {
    registration: await register(attacker, `harvest_${index}`, targets.code(form, "harvest")),
  };
  if (plant.registration.status === 201) plant.call = await call(attacker, plant.registration.body.id, {});
  const victim = await call(server.victim!, server.victimTool, input);
  // A slot that left B's call unanswered would leave A's too: the form has failed already.
  if (harvest.registration.status === 201 && victim.status !== 0)
    harvest.call = await call(attacker, harvest.registration.body.id, {});

  const failures: string[] = [];
  const seenByA = JSON.stringify([plant, harvest]);
  if (seenByA.includes(secret)) failures.push("A saw B's secret");
  const answer = victim.body as { ok?: unknown; output?: unknown };
  if (victim.status !== 200 || answer.ok !== true || JSON.stringify(answer.output) !== JSON.stringify(output)) {
    failures.push(`B's answer changed: ${victim.status} ${JSON.stringify(victim.body).slice(0, 600)}`);
  }
  failures.push(...targets.breaches([plant, harvest, victim]));
  // The zygote serves every call of the slot; one that is gone was ended by a call of A's (B's is ordinary).
  const zygote = (harvest.call?.body.output as { zygote?: string } | undefined)?.zygote;
  if (zygote !== undefined && zygote !== server.zygote)
    failures.push(`the slot's zygote was replaced during the form (${server.zygote} → ${zygote}): A's calls ended it`);
  if (zygote !== undefined) server.zygote = zygote;
  for (const [part, registration] of [
    ["plant", plant.registration],
    ["harvest", harvest.registration],
  ] as const) {
    if (registration.status === 201) continue;
    const code = (registration.body.error as { code?: string } | undefined)?.code;
    if (registration.status !== 422 || !refusals.includes(code ?? ""))
      failures.push(`the ${part}'s registration answered ${registration.status}: ${JSON.stringify(registration.body)}`);
  }
  return { form, plant, harvest, victim, expected: output, secret, failures };
}

/**
 * Every cross-caller form in turn on the server's one slot. A form after which a request went unanswered (a slot
 * stalled for good) has failed; the next starts on a new server, so that each stall is its own form's. What each got
 * is written out as it goes when TOOLSMITH_ESCAPE_REPORT names a folder.
 */
async function attemptAll(server: Server, refusals: string[]): Promise<Run[]> {
  const runs: Run[] = [];
  const report = process.env.TOOLSMITH_ESCAPE_REPORT;
  for (const [index, form] of crossCallerForms.entries()) {
    const started = performance.now();
    const run = await attempt(server, form, index, refusals);
    runs.push(run);
    const answered = [run.plant.call, run.harvest.call, run.victim].every((answer) => !answer || answer.status !== 0);
    if (!answered) {
      run.failures.push("a request went unanswered: the slot stalled, so the server was replaced");
      await server.app.stop();
      server.app = oneSlotServer(server.env);
      await open(server);
    }
    if (report) {
      fs.mkdirSync(report, { recursive: true });
      fs.writeFileSync(path.join(report, `cross-caller ${server.name}.json`), JSON.stringify(runs, null, 2));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      fs.appendFileSync(
        path.join(report, "progress.txt"),
        `${server.name} ${form.id} ${seconds}s ${run.failures.length}\n`,
      );
    }
  }
  return runs;
}

/** The forms that did not hold, each with what showed it. */
const failuresOf = (runs: Run[]) =>
  runs.filter((run) => run.failures.length > 0).map((run) => ({ id: run.form.id, failures: run.failures }));

// The jail does not depend on the database: once, in the SQLite pass (as python-escapes.test.ts).
describe
  .skipIf(process.env.TEST_DATABASE === "postgresql")
  .concurrent("the Python escape corpus across callers, on one process slot", () => {
    beforeAll(async () => {
      await targets.start();
      // B's tool answers as expected before any form ran.
      await Promise.all([withPolicy, withoutPolicy].map(open));
    }, 120_000);
    afterAll(async () => {
      await Promise.all([withPolicy.app.stop(), withoutPolicy.app.stop()]);
      await targets.stop();
    });

    it("covers the breaches that prompted the fresh process per call, and more", () => {
      expect(crossCallerForms.length).toBeGreaterThanOrEqual(20);
      const ids = crossCallerForms.map((form) => form.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ["json-default-decoder-spy", "warnings-showwarning-spy", "crasher-accumulate-small-int"]) {
        expect(ids).toContain(id);
      }
    });

    it("with the policy check: nothing of B's reaches A, and B's answer is unchanged", async () => {
      const runs = await attemptAll(withPolicy, ["tool_policy", "tool_compile"]);
      expect(failuresOf(runs)).toEqual([]);
      expect(reported(runs, "crossed")).toEqual([]);
      expect(withPolicy.app.output).not.toContain(targets.canary);
    }, 240_000);

    it("without the policy check: nothing of B's reaches A, and B's answer is unchanged", async () => {
      const runs = await attemptAll(withoutPolicy, ["tool_compile"]);
      expect(failuresOf(runs)).toEqual([]);
      // Without the check, every plant runs: the forms test the jail, not registration.
      expect(runs.filter((run) => run.plant.call !== undefined).length).toBe(runs.length);
      expect(withoutPolicy.app.output).not.toContain(targets.canary);
    }, 240_000);
  });
