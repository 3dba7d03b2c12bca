import { Validator } from "@cfworker/json-schema";
import { saveToolVersion, type NewToolVersion, type ToolRow } from "@/lib/db/queries/tools";
import { checkCode, formatViolation, runInSandbox, type Violation } from "@/lib/sandbox";
import { sandboxFailure } from "./registered-tool";

const MAX_SCHEMA_CHARS = 16 * 1024;

export type Registration =
  | { ok: true; row: ToolRow }
  | { ok: false; problem: "schema" | "compile"; message: string; cancelled?: boolean }
  | { ok: false; problem: "policy"; message: string; violations: Violation[] };

/**
 * The one way a tool version comes to exist, from register_tool and from the API alike: its parameters schema
 * must be usable, its code must pass the policy and load in the sandbox (defining `run`); then it is stored.
 */
export async function registerToolVersion(tool: NewToolVersion, signal?: AbortSignal): Promise<Registration> {
  const schemaProblem = checkParametersSchema(tool.parametersSchema);
  if (schemaProblem) return { ok: false, problem: "schema", message: `Invalid parameters_schema: ${schemaProblem}` };

  const check = checkCode(tool.code);
  if (!check.ok) {
    return {
      ok: false,
      problem: "policy",
      message: `Tool "${tool.name}" was rejected by the code policy. Fix these and register it again:\n${check.violations.map(formatViolation).join("\n")}`,
      violations: check.violations,
    };
  }
  const compiled = await runInSandbox("compile", tool.code, undefined, signal);
  if (!compiled.ok) {
    const failure = sandboxFailure(compiled);
    return {
      ok: false,
      problem: "compile",
      message: `Tool "${tool.name}" failed to load: ${failure.error}`,
      cancelled: failure.cancelled,
    };
  }
  return { ok: true, row: await saveToolVersion(tool) };
}

function checkParametersSchema(schema: Record<string, unknown>): string | undefined {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return `larger than ${MAX_SCHEMA_CHARS} characters.`;
  if (schema.type !== "object") return 'it must be an object schema: {"type": "object", "properties": {...}}.';
  if (schema.properties !== undefined && (typeof schema.properties !== "object" || Array.isArray(schema.properties))) {
    return "`properties` must be an object.";
  }
  try {
    new Validator(schema, "2020-12").validate({});
  } catch (error) {
    return `it cannot be used for validation (${(error as Error).message}).`;
  }
  return undefined;
}
