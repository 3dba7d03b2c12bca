import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { seedSignedIn } from "../tests/support/accounts";
import { freshPostgresUrl, freshSqliteUrl, prepareDatabase } from "../tests/support/database";
import startPostgres from "../tests/support/postgres";
import { ms, summarize, timed } from "./stats";

const ROUNDS = 600;
const WARM_UP = 60;
/** Sessions each used once, for the cost of reading a session the instance has not cached. */
const FRESH_SESSIONS = 200;

/**
 * What a signed-in session adds to a request (lib/http/session.ts): GET /api/tools as an anonymous browser and as a
 * signed-in one, alternating call by call, over loopback. Cached: the same session again (the instance keeps what it
 * read for 2 s); uncached: a session used for the first time, read from the database.
 */
async function sessionFigures(databaseUrl: string) {
  await prepareDatabase(databaseUrl);
  // PostgreSQL's instances must be given the key that signs identity cookies.
  const app = scriptedApp(
    "http://127.0.0.1:9/v1",
    { TOOLSMITH_AUTH: "optional", TOOLSMITH_SECRET: "bench-secret" },
    databaseUrl,
  );
  await app.start({ migrated: true });
  try {
    const anonymous = new Api(app.url);
    await anonymous.identity();
    const { cookie } = await seedSignedIn(databaseUrl, "bench@example.com");
    const get = (headers: Record<string, string>) => async () => {
      const response = await fetch(`${app.url}/api/tools`, { headers });
      if (response.status !== 200) throw new Error(`/api/tools answered ${response.status}`);
      await response.json();
    };
    const asAnonymous = get({ cookie: anonymous.cookie! });
    const asSignedIn = get({ cookie: `${anonymous.cookie}; ${cookie}` });
    for (let i = 0; i < WARM_UP; i++) await Promise.all([asAnonymous(), asSignedIn()]);
    const added: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [without] = await timed(asAnonymous);
      const [withSession] = await timed(asSignedIn);
      added.push(withSession - without);
    }
    const fresh = await Promise.all(
      Array.from({ length: FRESH_SESSIONS }, () => seedSignedIn(databaseUrl, "bench@example.com")),
    );
    const uncached: number[] = [];
    for (const session of fresh) {
      const [without] = await timed(asAnonymous);
      const [first] = await timed(get({ cookie: `${anonymous.cookie}; ${session.cookie}` }));
      uncached.push(first - without);
    }
    return { cached: summarize(added), uncached: summarize(uncached) };
  } finally {
    await app.stop();
  }
}

export async function benchAccounts(): Promise<void> {
  console.log(`\n## Sessions (a signed-in request against an anonymous one, GET /api/tools, loopback)`);
  console.log(`Median of ${ROUNDS} pairwise differences (cached), of ${FRESH_SESSIONS} first uses (uncached):`);
  console.log("| database | cached: median | p95 | uncached: median | p95 |");
  console.log("| --- | --- | --- | --- | --- |");
  const print = (name: string, { cached, uncached }: Awaited<ReturnType<typeof sessionFigures>>) =>
    console.log(
      `| ${name} | ${ms(cached.median)} | ${ms(cached.p95)} | ${ms(uncached.median)} | ${ms(uncached.p95)} |`,
    );
  print("SQLite", await sessionFigures(freshSqliteUrl()));
  const stopPostgres = await startPostgres();
  try {
    print("PostgreSQL", await sessionFigures(freshPostgresUrl()));
  } finally {
    await stopPostgres();
  }
}
