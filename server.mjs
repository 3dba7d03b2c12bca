// The production server: Next's handler behind Node's HTTP server, so that the app knows who is really connecting:
// X-Forwarded-* headers are dropped (Next fills them in from the socket) unless TOOLSMITH_TRUST_PROXY=1.
import { SettingsError } from "./lib/settings/environment.mjs";
import {
  disconnectStalledClients,
  eventLoopProbe,
  listen,
  loadSettings,
  refuseBeyondCapacity,
  refuseUndecodableUrl,
  restartWithServerFlags,
  serveDirectly,
} from "./server-runtime.mjs";

let settings;
try {
  settings = loadSettings();
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  console.error(`Toolsmith cannot start: ${error.message}`);
  process.exit(1);
}
restartWithServerFlags();
const { default: next } = await import("next");

const FORWARDED = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"];
const { PORT: port, TOOLSMITH_LISTEN_HOST: host, TOOLSMITH_TRUST_PROXY: trustProxy } = settings;
const watchForStall = disconnectStalledClients(settings.TOOLSMITH_CLIENT_STALL_MS);
const refuseWhenFull = refuseBeyondCapacity(settings.TOOLSMITH_MAX_REQUESTS);
/** As lib/http/origin.ts's publicOrigin decides it: the public URL's protocol, or a trusted proxy's. */
const servedOverHttps = (request) =>
  settings.TOOLSMITH_PUBLIC_URL
    ? settings.TOOLSMITH_PUBLIC_URL.startsWith("https:")
    : String(request.headers["x-forwarded-proto"] ?? "")
        .split(",")[0]
        .trim() === "https";

const app = next({ dev: false, port, hostname: host ?? "localhost" });
const handle = app.getRequestHandler();
let appReady = () => {};
const ready = new Promise((resolve) => (appReady = resolve));
// Settled by instrumentation.ts once the app has started (its runs' leases, the takeover of runs left running), or
// cannot; Next starts that hook as it prepares the app, without waiting for it (in production).
const appStarted = new Promise((resolve, reject) => (globalThis.toolsmithStarted = { resolve, reject }));

// The port first: preparing the app starts its runs' leases and takes over runs left running (instrumentation-node.ts),
// which a second server started on a port in use by mistake must never do. Requests wait for the app.
const servers = await listen(
  (request, response) => {
    if (!trustProxy) for (const name of FORWARDED) delete request.headers[name];
    const secure = servedOverHttps(request);
    // A full instance answers 503 (Retry-After) before it does any work for the request.
    if (refuseWhenFull(request, response, { secure })) return;
    // Next answers an address it cannot decode with a bare 500 of its own: refused here, 400, with why.
    if (refuseUndecodableUrl(request, response, { secure })) return;
    watchForStall(response);
    void ready.then(() => {
      // A tool call through the API or SEAT: its route's own handler, without Next's router (instrumentation-node.ts).
      const direct = globalThis.toolsmithDirectRoute?.(request.method, request.url);
      return direct ? serveDirectly(direct, request, response, { secure }) : handle(request, response);
    });
  },
  { port, host },
).catch((error) => {
  console.error(
    `Toolsmith cannot listen on ${host ?? "every address"}, port ${port} (${error.code ?? error.message}): another server may be using it; stop it or set PORT.`,
  );
  process.exit(1);
});
await app.prepare();
await appStarted.catch((error) => {
  console.error(`Toolsmith cannot start: ${error?.message ?? error}`);
  process.exit(1);
});
appReady();
console.log(`Toolsmith is serving on http://${host ?? "localhost"}:${port}`);

/** The longest a stop waits for the runs in flight to be handed over before it exits anyway. */
const HAND_OVER_MS = 3_000;

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  // Ctrl-C under npm can deliver SIGINT twice; a second signal must not cut the hand-over short.
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    // Each run in flight stores what it emitted and gives up its lease, for another instance or the next start, and
    // the records gathered are stored (instrumentation-node.ts sets this; lib/runs/claims.ts hands the runs over).
    const handedOver = globalThis
      .toolsmithStop?.()
      .catch((error) => console.error("Could not hand the runs over:", error));
    await Promise.race([handedOver, new Promise((resolve) => setTimeout(resolve, HAND_OVER_MS))]);
    process.exit(0);
  });
}

// For capacity checks (npm run bench): SIGUSR2 prints the memory in use, after a full collection when the server
// runs with --expose-gc, and how late the event loop ran timers since the last SIGUSR2 (every hop of a live event
// through this process waits that long).
const loopDelay = eventLoopProbe();
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  console.log(`toolsmith-stats ${JSON.stringify({ rss, heapUsed, eventLoopDelayMs: loopDelay.lateness() })}`);
});
