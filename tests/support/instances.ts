// What the scale-out tests (tests/scale-out, run by the `postgresql` project) share: several instances of the app on
// one PostgreSQL database, as behind a load balancer, with leases short enough for a test to see them run out.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { Api, ofType } from "./api";
import { scriptedApp, type AppServer } from "./app-server";
import { freshDatabaseUrl, prepareDatabase, slowInserts } from "./database";
import { ModelServer } from "./model-server";
import { watchSse, type SseMessage } from "./sse";

export const LEASE_MS = 2_000;
/** A statement whose connection went silent fails this soon (the default, 30 s, is longer than a test). */
export const QUERY_TIMEOUT_MS = 5_000;
/** run_code's input for a call that is still running when the test acts. */
export const SPIN = { code: "const end = Date.now() + 4000; while (Date.now() < end) {} 'spun'" };

/** The built-in default profile, one that asks before calculating, and one that allows three calculations a minute. */
const CONFIG = `profiles:
  - name: default
    tools: [register_tool, calculate, run_code]
  - name: careful
    tools: [calculate]
    approval: [calculate]
  - name: limited
    tools: [calculate]
    tool_config:
      calculate:
        rate_limit: { calls: 3, per_seconds: 60 }
default_profile: default
`;

/** Ids run 1, 2, 3 … without a gap or a repeat, and nothing follows run_finished. */
export function expectWholeLog(events: SseMessage[]) {
  expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
  expect(events.at(-1)!.data.type).toBe("run_finished");
  expect(ofType(events, "run_finished")).toHaveLength(1);
}

/** Instances A and B on the test file's database, and one person, whose requests reach either (`onA`, `onB`). */
export interface TwoInstances {
  a: AppServer;
  b: AppServer;
  onA: Api;
  onB: Api;
}

/**
 * One test file's scripted model server and fresh database, and `instance`, which makes (without starting) an
 * instance of the app on that database (or on `url`, the same database through a relay) with short leases.
 * Registers the file's hooks: before its tests, the model server and instances A and B start (`two` holds them, and
 * one person's client of each, from then on); after them, the A and B in `two` (A's replacement, if `replaceA` made
 * one) and the model server stop.
 */
export function scaleOut() {
  const model = new ModelServer();
  const databaseUrl = freshDatabaseUrl();
  const configFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-config-")), "toolsmith.config.yaml");
  fs.writeFileSync(configFile, CONFIG);
  const instance = (url = databaseUrl, env: Record<string, string> = {}) =>
    scriptedApp(
      model.url,
      {
        TOOLSMITH_LEASE_MS: String(LEASE_MS),
        TOOLSMITH_DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
        TOOLSMITH_MAX_STEPS: "6",
        TOOLSMITH_CONFIG: configFile,
        ...env,
      },
      url,
    );

  /** Start `server`, made by `instance` on the database `startTwo` migrated, and give it a client of `person`. */
  async function join(server: AppServer, person: Api): Promise<Api> {
    await server.start({ migrated: true });
    return Object.assign(new Api(server.url), { cookie: person.cookie });
  }

  /** The model server, then A and B: the database is migrated once, and the two start side by side. */
  async function startTwo(): Promise<TwoInstances> {
    await model.start();
    await prepareDatabase(databaseUrl);
    const [a, b] = [instance(), instance()];
    await Promise.all([a.start({ migrated: true }), b.start({ migrated: true })]);
    const onA = new Api(a.url);
    await onA.identity();
    const onB = Object.assign(new Api(b.url), { cookie: onA.cookie });
    return { a, b, onA, onB };
  }

  /** Stop the instances given (those that started) and the model server. */
  async function stop(...servers: (AppServer | undefined)[]): Promise<void> {
    await Promise.all(servers.map((server) => server?.stop()));
    await model.stop();
  }

  /** A and B and the person's clients of each, from when the file's tests begin (empty until then). */
  const two = {} as TwoInstances;
  beforeAll(async () => Object.assign(two, await startTwo()));
  afterAll(() => stop(two.a, two.b));

  /** A new instance A in place of one that was killed or stopped, for the same person. */
  async function replaceA() {
    two.a = instance();
    two.onA = await join(two.a, two.onB);
  }

  /**
   * A run on A whose answer takes `seconds` to store, while its row says it finished (so B may claim the
   * conversation, and B's followers find no run running), and what `onB` does on B meanwhile, with the conversation's
   * id. What A's stream showed, and what `onB` resolved with.
   */
  async function whileAStoresItsEnd<Result>(onA: Api, seconds: number, onB: (id: string) => Promise<Result>) {
    const { id } = await onA.createConversation();
    const prompt = `Answer on A, stored in ${seconds} s, in ${id}.`;
    model.script(prompt, [{ text: "Ending slowly." }]);
    const slowAnswer = await slowInserts(databaseUrl, {
      table: "Message",
      conversationId: id,
      seconds,
      when: `NEW."role" = 'assistant'`,
    });
    try {
      const streamOnA = watchSse(await onA.send(id, prompt));
      await slowAnswer.inProgress();
      const result = await onB(id);
      await streamOnA.end;
      return { id, seenOnA: streamOnA.shown, result };
    } finally {
      await slowAnswer.remove();
    }
  }

  return { model, databaseUrl, instance, join, two, replaceA, whileAStoresItsEnd };
}
