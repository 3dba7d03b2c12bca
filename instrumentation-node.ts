import type { RouteParams } from "@/lib/http/access";

/** The server's start-up: its settings checked, its database held (SQLite), its runs' leases, its sandbox threads. */
export async function start() {
  // @ai-sdk/openai builds a default provider when imported and throws on an empty OPENAI_BASE_URL, which a blank
  // line in .env produces: an empty setting means unset.
  for (const name of ["OPENAI_BASE_URL", "OPENAI_API_KEY"])
    if (process.env[name]?.trim() === "") delete process.env[name];

  const problem = await startupProblem();
  if (problem) {
    // At once, under `next dev` too: Next would only log a throw from here and serve on.
    console.error(`Toolsmith cannot start: ${problem}`);
    process.exit(1);
  }
  const { pythonPool, sandboxPool } = await import("@/lib/sandbox");
  const { config } = await import("@/lib/settings/config");
  const { tuneDatabase } = await import("@/lib/db/driver/client");
  await tuneDatabase();
  // Heartbeats for this instance's runs, and the takeover of runs whose instance died (lib/runs/claims.ts).
  const { handOverRuns, onRunFinished, startRunLeases } = await import("@/lib/runs/run");
  // A finished run's trace goes to the OTLP receiver when one is configured (lib/telemetry/export.ts).
  const { exportFinishedRun, flushTelemetry } = await import("@/lib/telemetry/export");
  onRunFinished(exportFinishedRun);
  await startRunLeases();
  // For server.mjs, which calls it on SIGTERM and SIGINT before it exits: the app's modules are Next's to load.
  // The runs go to another instance; the calls' records gathered for a few milliseconds are stored; the traces of the
  // runs that finished are sent (lib/telemetry/export.ts).
  const { settleRecordWrites } = await import("@/lib/db/driver/batched-writes");
  (globalThis as { toolsmithStop?: () => Promise<void> }).toolsmithStop = async () => {
    await Promise.all([handOverRuns(), settleRecordWrites()]);
    await flushTelemetry();
  };
  (globalThis as { toolsmithDirectRoute?: typeof directRoute }).toolsmithDirectRoute = directRoute;
  // Next loads every route as it starts unless TOOLSMITH_PRELOAD_ROUTES=0: the direct routes' handlers too, or the
  // first tool call would wait for their code.
  const { environment } = await import("@/lib/settings/environment.mjs");
  if (environment().TOOLSMITH_PRELOAD_ROUTES) await loadDirectRoutes();
  // Start the sandbox threads and the Python processes now, so the first tool call does not pay for them. Without
  // TOOLSMITH_PYTHON_WARM, Python's processes start at the first Python call.
  sandboxPool()
    .warm()
    .catch((error) => console.error("The sandbox threads did not start; calls will start them again:", error));
  if (config.python.warmAtStart && pythonPool().available().ok)
    pythonPool()
      .warm()
      .catch((error) => console.error("The Python sandbox did not start; calls will start it again:", error));
}

type RouteModule = { POST(request: Request, context: RouteParams): Promise<Response> };

/**
 * The routes server.mjs answers without Next's router, by method and path: a tool call through the API or SEAT, to
 * which Next's routing added as much as the call's own work did (docs/performance.md). Their handlers are the routes'
 * own, loaded at the first call; Next serves the rest of their paths (another method's 405, a trailing slash).
 */
const DIRECT_ROUTES: { method: string; path: RegExp; load: () => Promise<RouteModule> }[] = [
  {
    method: "POST",
    path: /^\/api\/tools\/([^/?#]+)\/execute(?:\?|$)/,
    load: () => import("@/app/api/tools/[id]/execute/route"),
  },
  {
    method: "POST",
    path: /^\/seat\/tools\/([^/?#]+)\/execute(?:\?|$)/,
    load: () => import("@/app/seat/tools/[id]/execute/route"),
  },
];

/** Load the direct routes' handlers now, ahead of their first call. */
export const loadDirectRoutes = () => Promise.all(DIRECT_ROUTES.map((route) => route.load()));

/** The handler of the direct route a request's method and URL (its path and query) name, if they name one. */
export function directRoute(
  method: string | undefined,
  url: string | undefined,
): ((request: Request) => Promise<Response>) | undefined {
  for (const route of DIRECT_ROUTES) {
    const segment = route.method === method ? route.path.exec(url ?? "")?.[1] : undefined;
    if (segment === undefined) continue;
    // As Next decodes a dynamic segment; server.mjs has refused a path that cannot be decoded.
    const params = Promise.resolve({ id: decodeURIComponent(segment) });
    return async (request) => (await route.load()).POST(request, { params });
  }
  return undefined;
}

/**
 * What the server cannot run with: a setting with a value it cannot have, a profile file that cannot be used (its
 * line and problem), a SQLite database another server uses, or a missing secret.
 */
async function startupProblem(): Promise<string | undefined> {
  const { environment, SettingsError } = await import("@/lib/settings/environment.mjs");
  let settings;
  try {
    settings = environment();
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return error.message;
  }
  const { ConfigFileError, loadProfiles } = await import("@/lib/settings/profiles");
  const { BUILTIN_TOOL_NAMES } = await import("@/lib/tools/names");
  try {
    loadProfiles(BUILTIN_TOOL_NAMES);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    return error.message;
  }
  const { databaseConfig } = await import("@/lib/settings/config");
  const database = databaseConfig();
  // Each instance would otherwise generate its own key, and a browser's identity would not hold across them.
  if (database.provider === "postgresql" && !settings.TOOLSMITH_SECRET) {
    return "with PostgreSQL, set TOOLSMITH_SECRET, the same on every instance (e.g. openssl rand -base64 32).";
  }
  if (database.provider === "sqlite") {
    const { takeSqliteLock } = await import("@/lib/db/driver/sqlite-lock.mjs");
    const { processWide } = await import("@/lib/platform/process-wide");
    // Held for the server's life, by the process: a dev-mode reload asks again and gets the same answer.
    const taken = await processWide("sqliteLock", () => takeSqliteLock(database.file));
    if ("problem" in taken) return taken.problem;
  }
  return undefined;
}
