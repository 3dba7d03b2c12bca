/** Runs once when the server starts, before any route module is loaded. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // @ai-sdk/openai builds a default provider when imported and throws on an empty OPENAI_BASE_URL, which a blank
  // line in .env produces: an empty setting means unset.
  for (const name of ["OPENAI_BASE_URL", "OPENAI_API_KEY"]) if (process.env[name]?.trim() === "") delete process.env[name];

  // A profile file that cannot be used stops the server here, with the line and the problem (Next would only log
  // a throw from here and serve on).
  const { ConfigFileError, loadProfiles } = await import("@/lib/profiles");
  try {
    loadProfiles();
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    console.error(`Toolsmith cannot start: ${error.message}`);
    process.exit(1);
  }
  const { sandboxPool } = await import("@/lib/sandbox");
  const { tuneDatabase } = await import("@/lib/db/client");
  await tuneDatabase();
  const { closeAbandonedRuns } = await import("@/lib/agent/recover");
  // One server process owns the runs of its database (see README); a run still open now was cut off.
  await closeAbandonedRuns().catch((error) => console.error("Could not close abandoned runs:", error));
  // Start the sandbox threads now, so the first tool call does not pay for them.
  sandboxPool()
    .warm()
    .catch((error) => console.error("The sandbox threads did not start; calls will start them again:", error));
}
