import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "../support/api";
import type { AppServer } from "../support/app-server";
import { escapeServer } from "../support/escape-server";
import { EscapeTargets, escapeForms, victim, type EscapeForm } from "../support/python-escapes";

// The Python escape corpus through the production server: each form registered as a Python tool with the API and
// called, on a server with the policy check (registration refuses most, naming the rule and the line) and, side by
// side, on one without it (TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY=1: registered and called, the sandbox alone holds).
// The canary is in the servers' environment and in a host file; the listener is on the servers' loopback.
const targets = new EscapeTargets();

/** The classes of forms written to get past the policy and test the jail behind it. */
const JAIL_CLASSES = new Set([
  "library-file",
  "library-process",
  "native",
  "resource-bomb",
  "jail-design",
  "crasher",
  "pyjail",
  "llm-app-cve",
]);

/** Requests in flight at once per server: enough to keep its Python processes busy while others restart. */
const PARALLEL = 6;

// Many forms leave their process to be replaced, or spin until stopped: three slots keep the corpus to about a
// minute on two cores.
const pythonServer = (env: Record<string, string> = {}) => escapeServer(targets, 3, env);

interface Server {
  app: AppServer;
  client?: Api;
}
const withPolicy: Server = { app: pythonServer() };
const withoutPolicy: Server = { app: pythonServer({ TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY: "1" }) };
/** The server's one client, once the server is up (its address is known then). */
const clientOf = (server: Server): Api => (server.client ??= new Api(server.app.url));

const post = (client: Api, path: string, body: unknown) =>
  client.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const toolBody = (name: string, code: string) => ({
  name,
  description: "A Python tool of the escape corpus.",
  parameters_schema: { type: "object" },
  code,
  language: "python",
});

interface Attempt {
  form: EscapeForm;
  registration: { status: number; body: Record<string, unknown> };
  call?: { status: number; body: Record<string, unknown> };
}

/** Register the form as a tool and, when that is accepted, call it. */
async function attempt(client: Api, form: EscapeForm, index: number): Promise<Attempt> {
  const response = await post(client, "/api/tools", toolBody(`escape_${index}`, targets.code(form)));
  const registration = { status: response.status, body: await response.json() };
  if (response.status !== 201) return { form, registration };
  const called = await post(client, `/api/tools/${registration.body.id}/execute`, { input: {} });
  return { form, registration, call: { status: called.status, body: await called.json() } };
}

/** Every form, PARALLEL at a time. */
async function attemptAll(client: Api): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  // What each form got, for reading, when TOOLSMITH_ESCAPE_REPORT names a folder.
  const report = process.env.TOOLSMITH_ESCAPE_REPORT;
  const name = client === withPolicy.client ? "with the policy" : "without the policy";
  if (report) fs.mkdirSync(report, { recursive: true });
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < escapeForms.length; index = next++) {
      const started = performance.now();
      attempts[index] = await attempt(client, escapeForms[index], index);
      if (report) {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        fs.appendFileSync(path.join(report, "progress.txt"), `${name} ${escapeForms[index].id} ${seconds}s\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (report) fs.writeFileSync(path.join(report, `single ${name}.json`), JSON.stringify(attempts, null, 2));
  return attempts;
}

/** After the corpus: the server answers its health and an ordinary Python tool, registered and called, works. */
async function expectHealthy(server: Server): Promise<void> {
  const client = clientOf(server);
  const health = await client.fetch("/api/health");
  expect(health.status).toBe(200);
  expect((await health.json()).python).toMatchObject({ available: true });
  const registered = await post(client, "/api/tools", toolBody("ordinary_tool", victim.code));
  expect(registered.status, await registered.clone().text()).toBe(201);
  const { id } = await registered.json();
  const called = await post(client, `/api/tools/${id}/execute`, { input: victim.input });
  expect(await called.json()).toMatchObject({ ok: true, output: victim.output });
  // Nothing of the canary in anything the server wrote either.
  expect(server.app.output).not.toContain(targets.canary);
  expect(targets.breaches(null)).toEqual([]);
}

/**
 * What must hold of every attempt: nothing of the targets in any answer (nor anything a form says it got through); a registered form's call answered (200, its
 * outcome whatever it is); a refused one refused with a 422 of the codes given, the policy's naming a line.
 */
function expectContained(attempts: Attempt[], refusals: string[]): void {
  for (const { form, registration, call } of attempts) {
    const what = `${form.id} (${form.note}): ${JSON.stringify(registration.body)}`;
    expect(targets.breaches([registration, call]), what).toEqual([]);
    if (registration.status === 201) {
      expect(call?.status, what).toBe(200);
      continue;
    }
    expect(registration.status, what).toBe(422);
    expect(refusals, what).toContain((registration.body.error as { code: string }).code);
    const violations = (registration.body.violations ?? []) as { line: number; message: string }[];
    for (const violation of violations) {
      expect(violation.line, what).toBeGreaterThanOrEqual(1);
      expect(violation.message, what).not.toBe("");
    }
  }
}

describe.concurrent("the Python escape corpus through the server", () => {
  beforeAll(async () => {
    await targets.start();
    await Promise.all(
      [withPolicy, withoutPolicy].map(async (server) => {
        await server.app.start();
        // One identity before the requests go out side by side (each would otherwise get its own).
        await clientOf(server).identity();
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([withPolicy.app.stop(), withoutPolicy.app.stop()]);
    await targets.stop();
  });

  it("with the policy check: refuses each form at registration (the rule, the line) or contains its call", async () => {
    const attempts = await attemptAll(clientOf(withPolicy));
    // A form past the policy whose module does not load (the sandbox refused what it reached for) is tool_compile.
    expectContained(attempts, ["tool_policy", "tool_compile"]);
    // Most of the forms aimed at the policy are refused by it. Those aimed at the jail get past it by design (a path
    // given to pandas, os as bs4.os, the real builtins through a class pattern): their calls are what is tested.
    const aimedAtThePolicy = attempts.filter(({ form }) => !JAIL_CLASSES.has(form.class));
    const refused = aimedAtThePolicy.filter(({ registration }) => registration.body.violations !== undefined);
    expect(refused.length).toBeGreaterThan(aimedAtThePolicy.length * 0.8);
    await expectHealthy(withPolicy);
  }, 120_000);

  it("without the policy check: registers and calls each form, and every call is contained", async () => {
    const attempts = await attemptAll(clientOf(withoutPolicy));
    expectContained(attempts, ["tool_compile"]);
    expect(attempts.filter(({ call }) => call !== undefined).length).toBeGreaterThan(escapeForms.length * 0.8);
    await expectHealthy(withoutPolicy);
  }, 120_000);
});
