import { AppServer } from "./app-server";
import { freshDatabaseUrl } from "./database";
import { CANARY_VARIABLE, type EscapeTargets } from "./python-escapes";

/**
 * A production server for escape forms: no model, the canary in its environment, `workers` Python slots and a short
 * clock (2 s: forms that spin end soon, while a slot's first call on a busy machine still fits).
 */
export function escapeServer(targets: EscapeTargets, workers: number, env: Record<string, string> = {}): AppServer {
  return new AppServer({
    DATABASE_URL: freshDatabaseUrl(),
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    [CANARY_VARIABLE]: targets.canary,
    TOOLSMITH_PYTHON_WORKERS: String(workers),
    TOOLSMITH_TOOL_TIMEOUT_MS: "2000",
    ...env,
  });
}
