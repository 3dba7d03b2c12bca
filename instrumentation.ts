/** What server.mjs waits for before it says it serves: Next starts this hook without waiting for it in production. */
interface Started {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Runs once when the server starts, before any route module is loaded. The start-up itself is Node's only
 * (instrumentation-node.ts), imported here so that the Edge build never sees it.
 */
export async function register() {
  // Next's own, set per runtime; not in lib/settings/environment.mjs, which the Edge build of this file must not load.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const started = (globalThis as { toolsmithStarted?: Started }).toolsmithStarted;
  try {
    const { start } = await import("./instrumentation-node");
    await start();
    started?.resolve();
  } catch (error) {
    started?.reject(error);
    throw error;
  }
}
